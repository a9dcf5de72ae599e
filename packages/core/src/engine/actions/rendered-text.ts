import { hasPlaceholders, renderTemplate, type TemplateEscape, templateView } from '../../language/message-template.js';
import type { ActionContext } from '../interfaces.js';

const NO_FACTS = new Map<string, never>();

/** An action's text with its placeholders filled from the trigger (message-template.ts); a text without any is returned as it is. */
export function renderedText(text: string, context: ActionContext, escape: TemplateEscape = 'text'): string {
  if (!hasPlaceholders(text)) return text;
  const { trigger } = context;
  return renderTemplate(text, templateView({ ...trigger, stepId: context.stepId }, trigger.templateFacts ?? NO_FACTS), escape);
}
