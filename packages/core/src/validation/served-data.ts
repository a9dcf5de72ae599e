/**
 * What a host (or a recording) can serve, for validation that knows it (`validate(request, {served})`):
 * a condition no feed can serve is an error, not a query that sits `active` forever.
 */
export interface ServedData {
  /** Assets whose prices a feed serves, matched by base asset (`BTC` serves `BTC/USDT`, `BTC-PERP`); absent: any. */
  symbols?: readonly string[];
  /** Timeframes indicators can be computed on; absent: every timeframe of the language. */
  timeframes?: readonly string[];
  /** Whether past prices exist to warm windows and indicators when a query starts (default true). */
  history?: boolean;
  /**
   * With `history`: the instant (epoch ms) the history starts, when it does not reach further back (a
   * replay's earlier laps). A series that could be defined only after the query expires is then an
   * error. Absent: the history reaches as far back as any series needs (a venue's candles).
   */
  historySince?: number;
}
