import { paramsOf } from '../../language/query-walk.js';
import { judgeWebhookUrl } from '../../net/host-policy.js';
import { joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** Webhook targets are absolute http(s) URLs naming a public host. */
export const webhookUrls: Rule = ({ actions, sink }) => {
  for (const action of actions) {
    if (action.node.type !== 'webhook') continue;
    const url = paramsOf(action.node).url;
    if (typeof url !== 'string' || url === '') continue;
    const path = joinPointer(action.pointer, 'params', 'url');
    const verdict = judgeWebhookUrl(url);
    if (!verdict.ok) {
      sink.error(verdict.code, path, verdict.message);
    } else if (verdict.insecure) {
      sink.warning('webhook-insecure', path, 'plain http sends the payload unencrypted; prefer https');
    }
  }
};
