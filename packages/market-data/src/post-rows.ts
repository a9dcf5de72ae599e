import type { ContractMention, PostType, StoredNewsItem, StoredPost } from './market-data.js';
import { SEQ_PER_MS } from './market-schema.js';

export interface PostRow {
  seq: number;
  tweet_id: string;
  link: string;
  username: string;
  is_verified: number;
  text: string;
  type: string;
  like_count: number;
  repost_count: number;
  view_count: number;
  quote_count: number;
  reply_count: number;
  bookmark_count: number;
  repost_smart: number;
  repost_ct: number;
  tokens: string;
  contracts: string;
}

export interface NewsRow {
  seq: number;
  id: string;
  url: string;
  title: string;
  text: string;
  source: string;
  tokens: string;
}

export const msOfSeq = (seq: number): number => Math.floor(seq / SEQ_PER_MS);

export function postOfRow(row: PostRow): StoredPost {
  return {
    tweetId: row.tweet_id,
    link: row.link,
    username: row.username,
    isVerified: row.is_verified === 1,
    text: row.text,
    mentionedAt: msOfSeq(row.seq),
    type: row.type as PostType,
    likeCount: row.like_count,
    repostCount: row.repost_count,
    viewCount: row.view_count,
    quoteCount: row.quote_count,
    replyCount: row.reply_count,
    bookmarkCount: row.bookmark_count,
    repostBreakdown: { smart: row.repost_smart, ct: row.repost_ct },
    tokens: JSON.parse(row.tokens) as string[],
    contracts: JSON.parse(row.contracts) as ContractMention[],
  };
}

export function newsOfRow(row: NewsRow): StoredNewsItem {
  return { id: row.id, url: row.url, title: row.title, text: row.text, source: row.source, publishedAt: msOfSeq(row.seq), tokens: JSON.parse(row.tokens) as string[] };
}
