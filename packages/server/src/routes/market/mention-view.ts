import type { StoredPost } from '@eql/market-data';

/** Spec 2.11: a mention as the data endpoints return it. The post text is never part of it. */
export type MentionView = Pick<StoredPost, 'tweetId' | 'link' | 'likeCount' | 'repostCount' | 'viewCount' | 'quoteCount' | 'replyCount' | 'bookmarkCount' | 'repostBreakdown'> & {
  /** ISO 8601. */
  mentionedAt: string;
  type: string;
  account?: { username: string; isVerified: boolean };
};

export function mentionView(post: StoredPost, withAccount: boolean): MentionView {
  const view: MentionView = {
    tweetId: post.tweetId,
    link: post.link,
    likeCount: post.likeCount,
    repostCount: post.repostCount,
    viewCount: post.viewCount,
    quoteCount: post.quoteCount,
    replyCount: post.replyCount,
    bookmarkCount: post.bookmarkCount,
    mentionedAt: new Date(post.mentionedAt).toISOString(),
    type: post.type,
    repostBreakdown: { smart: post.repostBreakdown.smart, ct: post.repostBreakdown.ct },
  };
  if (withAccount) view.account = { username: post.username, isVerified: post.isVerified };
  return view;
}
