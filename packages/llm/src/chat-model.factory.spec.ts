import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOllama } from '@langchain/ollama';
import { ChatOpenAI } from '@langchain/openai';
import { createChatModel, describeLlmConfig } from './chat-model.factory.js';
import { parseLlmConfig } from './llm-config.js';
import { LlmConfigError, ScriptExhaustedError } from './llm-errors.js';
import { ScriptedChatModel } from './scripted-chat-model.js';

describe('createChatModel', () => {
  it('returns undefined for provider none (no model, no fake answers)', async () => {
    expect(await createChatModel({ provider: 'none' })).toBeUndefined();
    expect(await createChatModel({})).toBeUndefined();
  });

  it('builds a ScriptedChatModel from a script, which fails once the script is used up', async () => {
    const model = await createChatModel({ provider: 'scripted', script: [{ json: { ok: true } }] });
    expect(model).toBeInstanceOf(ScriptedChatModel);
    expect((await model!.invoke('x')).content).toBe('{"ok":true}');
    await expect(model!.invoke('y')).rejects.toThrow(ScriptExhaustedError);
  });

  it('builds the provider models offline with the configured settings', async () => {
    const openai = await createChatModel({ provider: 'openai', model: 'gpt-4o-mini', apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9/v1', temperature: 0, maxTokens: 100 });
    expect(openai).toBeInstanceOf(ChatOpenAI);
    expect((openai as ChatOpenAI).model).toBe('gpt-4o-mini');
    expect((openai as ChatOpenAI).temperature).toBe(0);
    expect((openai as ChatOpenAI).maxTokens).toBe(100);

    const anthropic = await createChatModel({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: 'k' });
    expect(anthropic).toBeInstanceOf(ChatAnthropic);
    expect((anthropic as ChatAnthropic).model).toBe('claude-sonnet-4-5');

    const ollama = await createChatModel({ provider: 'ollama', model: 'llama3.1' });
    expect(ollama).toBeInstanceOf(ChatOllama);
    expect((ollama as ChatOllama).baseUrl).toBe('http://127.0.0.1:11434');
  });

  it('rejects an incomplete config with an error naming the field', async () => {
    await expect(createChatModel({ provider: 'openai', model: 'gpt-4o-mini' })).rejects.toThrow(LlmConfigError);
    await expect(createChatModel({ provider: 'openai', model: 'gpt-4o-mini' })).rejects.toThrow("apiKey: is required for provider 'openai'");
  });
});

describe('describeLlmConfig', () => {
  it('describes the model without the key or URL credentials', () => {
    const text = describeLlmConfig(parseLlmConfig({ provider: 'openai', model: 'm', apiKey: 'sk-secret', baseUrl: 'https://user:pw@llm.example.com/v1?key=abc' }));
    expect(text).toBe('openai:m @ https://llm.example.com/v1');
    expect(describeLlmConfig(parseLlmConfig({}))).toBe('none');
    expect(describeLlmConfig(parseLlmConfig({ provider: 'scripted', script: ['a', 'b'] }))).toBe('scripted (2 responses)');
  });
});
