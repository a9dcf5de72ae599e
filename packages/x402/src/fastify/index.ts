/**
 * `@eql/x402/fastify`: the x402 payment layer as Fastify route hooks and a plugin, over the
 * framework-free `PaymentVerifier` and `AgentSecrets` of `@eql/x402`.
 *
 * @packageDocumentation
 */
export { agentGate } from './agent-gate.js';
export { paymentGate, type PaymentGate, type PaymentGateOptions } from './payment-gate.js';
export { x402Payments, type X402PluginOptions, type X402RouteConfig } from './x402-plugin.js';
