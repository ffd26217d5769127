/**
 * What grpcurl does against a gRPC port, with @grpc/grpc-js (grpcurl is not a
 * dependency): list services through server reflection, fetch a symbol's file
 * descriptors (how grpcurl resolves `grpc.health.v1.Health/Check` without a
 * local proto), and call grpc.health.v1.Health/Check. Tests use it to prove
 * the operator docs' grpcurl examples; it needs no principal token (health and
 * reflection are served outside the auth guard).
 */
import { credentials, loadPackageDefinition, Metadata, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProto } from 'grpc-health-check';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const reflectionProto = join(
  dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
  'build/proto/grpc/reflection/v1alpha/reflection.proto',
);

interface ReflectionResponse {
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

function reflect(address: string, request: object): Promise<ReflectionResponse> {
  const pkg = loadPackageDefinition(loadSync(reflectionProto, { keepCase: true })) as any;
  const client = new pkg.grpc.reflection.v1alpha.ServerReflection(address, credentials.createInsecure());
  return new Promise<ReflectionResponse>((resolve, reject) => {
    const stream = client.ServerReflectionInfo();
    stream.on('data', (res: ReflectionResponse) => {
      resolve(res);
      stream.end();
      client.close();
    });
    stream.on('error', (err: Error) => {
      client.close();
      reject(err);
    });
    stream.write(request);
  });
}

/** `grpcurl -plaintext <address> list` */
export async function listServices(address: string): Promise<string[]> {
  const res = await reflect(address, { list_services: '' });
  return res.list_services_response!.service.map((s) => s.name).sort();
}

/** `grpcurl -plaintext <address> describe <symbol>`: the number of file descriptors, or the reflection error. */
export async function describeSymbol(address: string, symbol: string): Promise<{ files: number } | { error: string }> {
  const res = await reflect(address, { file_containing_symbol: symbol });
  if (res.error_response) return { error: res.error_response.error_message };
  return { files: res.file_descriptor_response!.file_descriptor_proto.length };
}

/** `grpcurl -plaintext -d '{"service":"<name>"}' <address> grpc.health.v1.Health/Check`: the status or the gRPC error code. */
export function healthCheck(address: string, service: string): Promise<string> {
  const pkg = loadPackageDefinition(loadSync(healthProto, { keepCase: true, enums: String })) as unknown as {
    grpc: { health: { v1: { Health: ServiceClientConstructor } } };
  };
  const client = new pkg.grpc.health.v1.Health(address, credentials.createInsecure());
  return new Promise<string>((resolve) =>
    client.Check!({ service }, new Metadata(), (err: (Error & { code: number }) | null, res: { status: string }) => {
      client.close();
      resolve(err ? `error ${err.code}` : res.status);
    }),
  );
}
