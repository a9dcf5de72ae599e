import { judgeWebhookUrl } from '../../net/host-policy.js';
import type { Rule } from '../rule.js';

/** Webhook targets (steps and llm callbacks) are absolute http(s) URLs naming a public host (any host where the host allows private webhooks). */
export const webhookUrls: Rule = {
  name: 'webhook-urls',
  action: {
    types: ['webhook'],
    check: (action, { sink, allowPrivateWebhooks }) => {
      const url = action.params.url;
      if (typeof url !== 'string' || url === '') return;
      const path = `${action.pointer}/params/url`;
      const verdict = judgeWebhookUrl(url, { allowPrivate: allowPrivateWebhooks ?? false });
      if (!verdict.ok) sink.error(verdict.code, path, verdict.message);
      else if (verdict.insecure) sink.warning('webhook-insecure', path, 'plain http sends the payload unencrypted; prefer https');
    },
  },
};
