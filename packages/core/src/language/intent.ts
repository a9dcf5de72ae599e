/**
 * Reads the intent of a plain-words predicate, for the strict routing of spec 2.2:
 * a post by a named account belongs to `tweet`, a world event to `news`, the rest to `llm`.
 * Deliberately simple and explainable: each finding names the words that triggered it.
 */

/** A predicate read as a post by a named account (a `tweet` condition): the account, and the words that say so. */
export interface AccountPostIntent {
  /** The account, without @, when the text names one with a handle. */
  username?: string;
  /** The words that read like posting. */
  evidence: string;
}

/** A predicate read as a world event (a `news` condition): the words that say so. */
export interface WorldEventIntent {
  evidence: string;
}

const HANDLE = /(?:^|[^\w@])@([A-Za-z0-9_]{1,15})\b/;
const POST_VERB =
  /\b(tweets?|tweeted|tweeting|retweets?|retweeted|posts?|posted|posting|says|said|writes|wrote|replies|replied|mentions|mentioned|quote[- ]tweets?)\b/i;
const ON_PLATFORM = /\b(on|via|from) (x|twitter)\b|\b(his|her|their) (x|twitter) (account|feed)\b/i;

const WORLD_EVENT =
  /\b(approv(?:e|es|ed|al)|reject(?:s|ed|ion)?|deni(?:es|ed)|exploit(?:s|ed)?|hack(?:s|ed)?|breach(?:ed)?|drain(?:s|ed)?|sanction(?:s|ed)?|ban(?:s|ned)?|lawsuit|su(?:e|es|ed)|indict(?:ed|ment)?|arrest(?:s|ed)?|etf|sec|cftc|fomc|rate (?:cut|hike)s?|announc(?:e|es|ed|ement)|list(?:s|ed|ing)|delist(?:s|ed|ing)?|bankrupt(?:cy)?|merger|acqui(?:res|red|sition)|war|invasion|ceasefire|election|regulat(?:ion|or|ors|ory)|legislation|court|ruling|outage|partnership|launch(?:es|ed)?|halving|upgrade|hard fork)\b/i;

/** Finds a post by a named account in the text, if it reads like one. */
export function readAccountPost(text: string): AccountPostIntent | undefined {
  const verb = POST_VERB.exec(text);
  // A handle needs an @; the platform words count only when a verb or a handle lacks the other.
  const handle = text.includes('@') ? HANDLE.exec(text) : null;
  if (!verb && !handle) return undefined;
  const platform = verb && handle ? null : ON_PLATFORM.exec(text);
  if (handle && (verb || platform)) {
    const username = handle[1] as string;
    return { username, evidence: `@${username} … ${(verb ?? platform)?.[0] ?? ''}`.trim() };
  }
  if (verb && platform) return { evidence: `${verb[0]} … ${platform[0]}` };
  if (verb && /^(tweets?|tweeted|tweeting|retweets?|retweeted|quote[- ]tweets?)$/i.test(verb[0])) return { evidence: verb[0] };
  return undefined;
}

/** Finds world-event wording (approval, exploit, sanctions, ...) in the text. */
export function readWorldEvent(text: string): WorldEventIntent | undefined {
  const match = WORLD_EVENT.exec(text);
  return match ? { evidence: match[0] } : undefined;
}
