// Test-only Prompter: answers from a script, records every question, and fails on a question nobody expected.
import type { Prompter } from '../../console/prompter.js';

export interface Answers {
  input?: string[];
  password?: string[];
  confirm?: boolean[];
}

export interface FakePrompter extends Prompter {
  asked: string[];
}

export function fakePrompter(answers: Answers = {}): FakePrompter {
  const queues = {
    input: [...(answers.input ?? [])],
    password: [...(answers.password ?? [])],
    confirm: [...(answers.confirm ?? [])],
  };
  const asked: string[] = [];
  const next = <K extends keyof typeof queues>(kind: K, message: string): (typeof queues)[K][number] => {
    asked.push(message);
    const queue = queues[kind];
    if (queue.length === 0) throw new Error(`unexpected ${kind} prompt: ${message}`);
    return queue.shift() as (typeof queues)[K][number];
  };
  return {
    asked,
    input: async (message) => next('input', message),
    password: async (message) => next('password', message),
    confirm: async (message) => next('confirm', message),
  };
}
