/**
 * How many generated requests a no-500 property tries: its default in `npm test`, or `EQL_FUZZ_RUNS`
 * when set (`npm run fuzz` sets 10,000: the nightly-sized run).
 */
export function fuzzRuns(defaultRuns: number): number {
  const configured = Number(process.env.EQL_FUZZ_RUNS);
  return Number.isInteger(configured) && configured > 0 ? configured : defaultRuns;
}
