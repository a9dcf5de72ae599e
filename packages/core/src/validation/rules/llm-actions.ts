import { isRecord } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/**
 * llm actions: the assetMetadata rules of spec 4.3 per analysisType, and spec 2.3's note that only
 * queries whose first action is llm record LLM sessions.
 */
export const llmActions: Rule = {
  name: 'llm-actions',
  action: {
    types: ['llm'],
    check: (action, { query, sink }) => {
      if (action.parent) return;
      const { params } = action;
      const metadata = isRecord(params.assetMetadata) ? params.assetMetadata : {};
      const { analysisType } = params;
      if (analysisType === 'tokenIntro' || analysisType === 'tokenAnalysis') {
        const hasToken = nonEmpty(metadata.symbol) || (nonEmpty(metadata.chain) && nonEmpty(metadata.contractAddress));
        if (!hasToken) sink.error('asset-metadata', `${action.pointer}/params/analysisType`, `${analysisType} needs params.assetMetadata.symbol, or chain and contractAddress`);
      } else if (analysisType === 'accountAnalysis' && !nonEmpty(metadata.username)) {
        sink.error('asset-metadata', `${action.pointer}/params/analysisType`, 'accountAnalysis needs params.assetMetadata.username');
      }
      const steps = query !== undefined && Array.isArray(query.actions) ? query.actions : [];
      if (steps[0] !== action.node) {
        sink.warning(
          'llm-not-first',
          `${action.pointer}/type`,
          'LLM sessions are recorded only for queries whose first action is llm; move this step first to read its analysis later',
        );
      }
    },
  },
};
