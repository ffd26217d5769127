/**
 * ts-proto registers a protobufjs wrapper for Struct only; Value and ListValue
 * fields (e.g. NodeState.output) need the same so handlers see plain JSON.
 * protobufjs does not re-wrap what a wrapper returns, so nesting is safe.
 */
import protobuf from 'protobufjs';
import { ListValue, Value } from './gen/google/protobuf/struct.js';

const wrappers = protobuf.wrappers as Record<string, unknown>;
wrappers['.google.protobuf.Value'] = { fromObject: Value.wrap, toObject: Value.unwrap };
wrappers['.google.protobuf.ListValue'] = { fromObject: ListValue.wrap, toObject: ListValue.unwrap };
