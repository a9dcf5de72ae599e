import { baseAsset, type Recording, type ServedData } from '@eql/core';

/** What a recording serves: the assets of its prices, with everything before the start of a replay as history. */
export function servedByRecording(recording: Pick<Recording, 'observations'>): ServedData {
  const symbols = new Set<string>();
  for (const observation of recording.observations) if (observation.source === 'price') symbols.add(baseAsset(observation.symbol));
  return { symbols: [...symbols].sort(), history: true };
}

/** `--served BTC,ETH,SOL` (and `--no-history`): what a host serves, as a command line says it. */
export function servedByFlags(symbols: string | undefined, history: boolean): ServedData | undefined {
  if (symbols === undefined && history) return undefined;
  const served: ServedData = { history };
  if (symbols !== undefined) served.symbols = symbols.split(',').map((symbol) => symbol.trim()).filter((symbol) => symbol !== '');
  return served;
}
