/** Writes one chunk of an export, resolving when the client can take more (backpressure). */
export type ChunkSink = (chunk: string | Uint8Array) => Promise<void>;

/** An export as a service hands it to the transport: what it is, and how to produce it chunk by chunk. */
export interface ExportFile {
  contentType: string;
  filename: string;
  /** Produces the file through `write`; a transaction it opens lives as long as the download. */
  produce: (write: ChunkSink) => Promise<void>;
}
