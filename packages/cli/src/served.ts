import { pricedAssets, type Recording, type ServedData } from '@eql/core';

/** What a recording serves: the assets of its prices, with everything before the start of a replay as history. */
export function servedByRecording(recording: Pick<Recording, 'observations'>): ServedData {
  return { symbols: pricedAssets(recording.observations), history: true };
}

/** `--served BTC,ETH,SOL` (and `--no-history`): what a host serves, as a command line says it. */
export function servedByFlags(symbols: string | undefined, history: boolean): ServedData | undefined {
  if (symbols === undefined && history) return undefined;
  const served: ServedData = { history };
  if (symbols !== undefined) served.symbols = symbols.split(',').map((symbol) => symbol.trim()).filter((symbol) => symbol !== '');
  return served;
}
