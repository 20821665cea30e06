export type { HttpApp } from '../server/http-app.js';
export type {
  AnalyzedConversation,
  AnalyzedRequest,
  CaptureAnalysis,
  CauseSummary,
  MissCause,
} from './analyze/analyze-capture.js';
export { analyzeCapture } from './analyze/analyze-capture.js';
export { CAUSE_ADVICE } from './analyze/cause-advice.js';
export type { CapturedRequest } from './analyze/read-capture.js';
export { CaptureError, parseCapture, readCapture } from './analyze/read-capture.js';
export type { EmulatedProvider, EmulatorOptions, EmulatorStats, ReceivedRequest } from './emulate/create-emulator-app.js';
export { CLOCK_HEADER, createEmulatorApp } from './emulate/create-emulator-app.js';
export type { EmulatorResponse } from './emulate/emulator-response.js';
export { toResponse } from './emulate/emulator-response.js';
export type { ScriptedReply } from './emulate/reply-script.js';
export { loadReplyScript, replyScriptSchema } from './emulate/reply-script.js';
export type { ResponsesStoreStats } from './emulate/responses-store.js';
export type { RunningEmulator, StartEmulatorOptions } from './emulate/start-emulator.js';
export { startEmulator } from './emulate/start-emulator.js';
export type { CaptureRecord } from './proxy/capture-record.js';
export type { ConversationSource } from './proxy/conversation-key.js';
export { CONVERSATION_HEADER, conversationKey } from './proxy/conversation-key.js';
export type { ProxyApp, ProxyOptions } from './proxy/create-proxy-app.js';
export { createProxyApp } from './proxy/create-proxy-app.js';
export type { ProxyKeepWarmOptions } from './proxy/keep-warm-options.js';
export type { KeepWarmStats } from './proxy/keep-warm-stats.js';
export type { BlockAt, MessagesCheckpoint } from './proxy/plan-block-scan.js';
export type { PlanContext, PlannedBody, PlanOptions } from './proxy/plan-cache-fields.js';
export { planCacheFields } from './proxy/plan-cache-fields.js';
export type { ProxyStats } from './proxy/proxy-core.js';
export type { RunningProxy, StartProxyOptions } from './proxy/start-proxy.js';
export { startProxy } from './proxy/start-proxy.js';
export type { WireRoute } from './proxy/wire-route.js';
export { KNOWN_UPSTREAMS, resolveUpstream, wireRouteOf } from './proxy/wire-route.js';
