/**
 * Wire contracts: ts-proto generated messages and NestJS service helpers for
 * every `agentfactory.*.v1` package, plus the loader settings that must match
 * the generator flags (see buf.gen.yaml).
 */

export * as common from './gen/agentfactory/common/v1/common.js';
export * as plan from './gen/agentfactory/plan/v1/plan.js';
export * as planner from './gen/agentfactory/planner/v1/planner.js';
export * as profiles from './gen/agentfactory/planner/v1/profiles.js';
export * as query from './gen/agentfactory/planner/v1/query.js';
export * as orchestrator from './gen/agentfactory/orchestrator/v1/orchestrator.js';
export * as orchestratorEvents from './gen/agentfactory/orchestrator/v1/events.js';
export * as schedules from './gen/agentfactory/orchestrator/v1/schedules.js';
export * as connector from './gen/agentfactory/connector/v1/connector.js';
export * as approval from './gen/agentfactory/approval/v1/approval.js';
export * as approvalEvents from './gen/agentfactory/approval/v1/events.js';
export * as agent from './gen/agentfactory/agent/v1/agent.js';
export * as action from './gen/agentfactory/action/v1/action.js';
export * as output from './gen/agentfactory/output/v1/output.js';
export * as entity from './gen/agentfactory/entity/v1/entity.js';
export { Struct, Value, ListValue } from './gen/google/protobuf/struct.js';
export { grpcLoaderOptions, protoFiles, protoRoot, type ProtoPackage } from './loader.js';
