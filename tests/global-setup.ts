import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { reservePort } from './helpers/ports';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}

export const TEMPLATE_DB = 'gateway_test_template';

/**
 * One PostgreSQL for the whole run (embedded in a temp dir, or TEST_DATABASE_URL), with a
 * migrated template database that each test file clones into a database of its own.
 */
export default async function setup(project: TestProject) {
  preserveExitCode();
  const given = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  let adminUrl: string;
  let dataDir: string | undefined;
  if (given) {
    adminUrl = given;
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-pg-'));
    // The superuser: each test file clones the template into a database of its own.
    const embedded = await startEmbedded({ dataDir, port: await reservePort() });
    adminUrl = embedded.adminUrl;
    stop = embedded.stop;
  }
  const teardown = async () => {
    await stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`);
    await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DB}`);
    const template = postgres(adminUrl.replace(/\/[^/?]+(\?|$)/, `/${TEMPLATE_DB}$1`), { max: 1, onnotice: () => {} });
    await migrate(template);
    await template.end();
    await admin.end();
  } catch (error) {
    // A set-up that fails after the database started must not leave it running.
    await teardown();
    throw error;
  }
  project.provide('adminDatabaseUrl', adminUrl);
  return teardown;
}
