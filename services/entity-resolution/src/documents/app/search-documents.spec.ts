import { defaultFusion } from './search-documents.js';

describe('defaultFusion', () => {
  it('is what bench/rag chose per offline embedder, plain RRF for a model embedder', () => {
    expect(defaultFusion('offline-wordvec-v1')).toEqual({ method: 'score', weights: [1, 1] });
    expect(defaultFusion('offline-hashed-ngram-v1')).toEqual({ method: 'score', weights: [0.75, 1] });
    expect(defaultFusion('openai:text-embedding-3-small')).toEqual({ method: 'rrf', weights: [1, 1] });
  });

  it('takes the configured method and dense weight over the defaults (BM25 always weighs 1)', () => {
    expect(defaultFusion('offline-wordvec-v1', 0.5, 'rrf')).toEqual({ method: 'rrf', weights: [0.5, 1] });
    expect(defaultFusion('ollama:nomic-embed-text', undefined, 'score')).toEqual({ method: 'score', weights: [1, 1] });
    expect(defaultFusion('offline-hashed-ngram-v1', 0)).toEqual({ method: 'score', weights: [0, 1] });
  });
});
