import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cosineSimilarity, createLangchainEmbedder, l2Normalise, LangchainEmbedder } from './embeddings.js';

describe('embeddings', () => {
  it('l2Normalise scales to unit length and leaves a zero vector alone', () => {
    expect(Array.from(l2Normalise(Float32Array.from([3, 4])))).toEqual([0.6000000238418579, 0.800000011920929]);
    expect(Array.from(l2Normalise(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it('cosineSimilarity: parallel 1, orthogonal 0, zero vector 0, different lengths refused', () => {
    expect(cosineSimilarity([1, 2], [2, 4])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 3])).toBe(0);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
    expect(() => cosineSimilarity([1], [1, 2])).toThrow('vectors differ in length (1 and 2)');
  });

  it('LangchainEmbedder normalises the vectors and refuses a wrong count', async () => {
    const ok = new LangchainEmbedder('stub', { embedDocuments: async (t) => t.map(() => [0, 2]) });
    expect((await ok.embed(['a', 'b'])).map((v) => Array.from(v))).toEqual([[0, 1], [0, 1]]);
    const short = new LangchainEmbedder('stub', { embedDocuments: async () => [[1]] });
    await expect(short.embed(['a', 'b'])).rejects.toThrow("embedding model 'stub' returned 1 vectors for 2 texts");
  });

  describe('openai through an HTTP server speaking /v1/embeddings', () => {
    let server: Server;
    let baseUrl: string;
    const seen: Array<{ model: string; input: string[]; auth: string | undefined }> = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const parsed = JSON.parse(body) as { model: string; input: string[] };
          seen.push({ model: parsed.model, input: parsed.input, auth: req.headers.authorization });
          if (req.url !== '/v1/embeddings') return void res.writeHead(404).end();
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ object: 'list', model: parsed.model, data: parsed.input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, 1, 0] })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('sends the model and key and returns normalised vectors named openai:<model>', async () => {
      const e = await createLangchainEmbedder({ provider: 'openai', model: 'embed-test', apiKey: 'sk-test', baseUrl, maxRetries: 0 });
      expect(e.name).toBe('openai:embed-test');
      const [v] = await e.embed(['abc']);
      expect(cosineSimilarity(v!, [3, 1, 0])).toBeCloseTo(1);
      expect(Math.hypot(...v!)).toBeCloseTo(1);
      expect(seen.at(-1)).toMatchObject({ model: 'embed-test', input: ['abc'], auth: 'Bearer sk-test' });
    });

    it('ollama defaults its model name', async () => {
      expect((await createLangchainEmbedder({ provider: 'ollama', baseUrl: 'http://127.0.0.1:9' })).name).toBe('ollama:nomic-embed-text');
    });
  });
});
