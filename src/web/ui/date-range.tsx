/** The filters' date range (`de_la`, `pana_la`, YYYY-MM-DD), as calendar inputs. */
export function DateRange({ from, to }: { from?: string; to?: string }) {
  return (
    <>
      <label>
        De la
        <input type="date" name="de_la" value={from ?? ''} />
      </label>
      <label>
        Până la
        <input type="date" name="pana_la" value={to ?? ''} />
      </label>
    </>
  );
}
