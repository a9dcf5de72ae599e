/**
 * Words the grammar knows by heart: names of markets, exchanges, and the small words that carry no
 * meaning of their own. Tables, not logic: the phrase rules read them.
 */

/** Common names and lower-case tickers of markets → ticker. */
export const SYMBOL_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    bitcoin: 'BTC', btc: 'BTC', xbt: 'BTC', sats: 'BTC',
    ether: 'ETH', ethereum: 'ETH', eth: 'ETH',
    solana: 'SOL', sol: 'SOL',
    dogecoin: 'DOGE', doge: 'DOGE',
    ripple: 'XRP', xrp: 'XRP',
    cardano: 'ADA', ada: 'ADA',
    bnb: 'BNB',
    avalanche: 'AVAX', avax: 'AVAX',
    chainlink: 'LINK',
    polkadot: 'DOT',
    litecoin: 'LTC', ltc: 'LTC',
    polygon: 'POL', matic: 'MATIC',
    shiba: 'SHIB', shib: 'SHIB',
    pepe: 'PEPE',
    tron: 'TRX', trx: 'TRX',
    toncoin: 'TON',
    sui: 'SUI',
    aptos: 'APT',
    arbitrum: 'ARB', arb: 'ARB',
    optimism: 'OP',
    uniswap: 'UNI',
    injective: 'INJ', inj: 'INJ',
    bonk: 'BONK',
    dogwifhat: 'WIF', wif: 'WIF',
    celestia: 'TIA', tia: 'TIA',
    cosmos: 'ATOM', atom: 'ATOM',
    stellar: 'XLM', xlm: 'XLM',
    filecoin: 'FIL',
    aave: 'AAVE',
    ethena: 'ENA', ena: 'ENA',
    worldcoin: 'WLD', wld: 'WLD',
    bittensor: 'TAO',
    kaspa: 'KAS',
    monero: 'XMR', xmr: 'XMR',
    jupiter: 'JUP',
    pyth: 'PYTH',
    ondo: 'ONDO',
  }),
);

/**
 * Upper-case words that are not tickers: indicator names, currencies, time zones, institutions and
 * chat words. An upper-case word of 2 to 10 letters outside this list reads as a ticker (`PEPE`).
 */
export const NOT_TICKERS: ReadonlySet<string> = new Set(
  (
    'RSI EMA SMA MA MACD ATR CCI BB BOLL TP SL USD USDT USDC EUR GBP UTC GMT CET EST PST AM PM ETF ETFS SEC CFTC LLM AI GPT API URL ' +
    'ID OK FOMC CPI GDP US USA UK EU IOC GTC PO PERP PERPS AND OR IF THEN WHEN ME MY TG DM FYI ASAP ATH ATL CEO NFT DEFI TVL CEX DEX ' +
    'KYC IPO FED HODL PNL ROI APR APY TA BUY SELL LONG SHORT NOT NO YES PLS PLZ JSON EQL HTTP HTTPS WWW IS IT THE TO AT ON IN OF FOR ' +
    'BY AN AS BE DO GO UP ALL ANY NEW NOW SO X'
  ).split(' '),
);

/** Exchange ids (schema: lower case) by the names people write. */
export const EXCHANGE_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    binance: 'binance', bybit: 'bybit', okx: 'okx', okex: 'okx', hyperliquid: 'hyperliquid', coinbase: 'coinbase',
    kraken: 'kraken', bitget: 'bitget', kucoin: 'kucoin', gate: 'gate', gateio: 'gate', mexc: 'mexc', bitmex: 'bitmex',
    deribit: 'deribit', dydx: 'dydx', bitfinex: 'bitfinex', htx: 'htx', huobi: 'htx', paper: 'paper',
  }),
);

/**
 * Words that carry no meaning when no phrase rule used them: articles, pronouns, auxiliaries,
 * politeness, and verbs of asking. Negations (`not`, `unless`, `except`) are deliberately absent,
 * so they are always reported when not understood.
 */
export const FILLER_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the when if once as soon is are was be being been goes go gets get getting becomes become it its it\'s that this these those ' +
    'there here me my mine i i\'m we us our you your please pls plz can could would should will shall want wanna like to for of on at in ' +
    'by with from hey hi hello thanks thank thx just set create make build give query alert alerts condition some again now okay ok so ' +
    'do does let know watch monitor track keep eye currently trades trading coin token market has have had got price prices value level ' +
    'mark quick quickly kindly new rule trigger triggers fire fires happen happens happened here\'s what whats what\'s which who then ' +
    'also too plus add put up right away immediately automatically auto simple simply something someone someday around about approx ' +
    'approximately roughly hits reaches reach touches touch back still already yet ever even really very well time times'
  ).split(' '),
);

/** Small numbers written as words. */
export const NUMBER_WORDS: ReadonlyMap<string, number> = new Map(
  Object.entries({
    zero: 0, one: 1, a: 1, an: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11,
    twelve: 12, fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100,
  }),
);
