import { describe, expect, it } from 'vitest';
import { actionIdFor, actionJobSchema, decisionWindow } from '../../src/records/action.ts';

describe('actionIdFor', () => {
  it('is deterministic, fixed-length, colon-free and not an integer', () => {
    const id = actionIdFor('liquidation-guard', 'decrease:815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF', 1_767_614_400_000);
    expect(id).toBe(actionIdFor('liquidation-guard', 'decrease:815wh1VLC8D7ZWMa3uB7GgjHFetANuML2dPrJiLV1nVF', 1_767_614_400_000));
    expect(id).toMatch(/^act-[0-9a-f]{40}$/);
    expect(id).not.toContain(':');
  });

  it('differs when any input differs, and the inputs cannot run into each other', () => {
    const ids = new Set([
      actionIdFor('a', 'k', 1),
      actionIdFor('b', 'k', 1),
      actionIdFor('a', 'k2', 1),
      actionIdFor('a', 'k', 2),
      actionIdFor('a-k', 'x', 1),
      actionIdFor('a', 'k-x', 1),
    ]);
    expect(ids.size).toBe(6);
  });

  it('checks its inputs', () => {
    expect(() => actionIdFor('Bad Name', 'k', 1)).toThrow();
    expect(() => actionIdFor('a', '', 1)).toThrow(RangeError);
    expect(() => actionIdFor('a', 'k'.repeat(129), 1)).toThrow(RangeError);
    expect(() => actionIdFor('a', 'k', -1)).toThrow(RangeError);
    expect(() => actionIdFor('a', 'k', 1.5)).toThrow(RangeError);
  });
});

describe('decisionWindow', () => {
  it('is the tick itself by default, or the tick rounded down to the window length', () => {
    expect(decisionWindow(1_000_123, 0)).toBe(1_000_123);
    expect(decisionWindow(1_000_123, 60_000)).toBe(960_000);
    expect(decisionWindow(959_999, 60_000)).toBe(900_000);
  });
});

describe('actionJobSchema', () => {
  it('accepts a well-formed action and refuses a bad id', () => {
    const action = {
      actionId: actionIdFor('g', 'k', 5),
      strategy: 'g',
      intent: { type: 'trigger-cancel', key: 'k', reason: 'r', notionalUsd: '0', order: 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k' },
      decidedAtMs: 6,
      window: 5,
      trigger: { kind: 'positions', key: 'w', tickMs: 5, receivedAtMs: 5 },
      stateAfter: { acted: { x: 5 } },
    };
    expect(actionJobSchema.parse(action)).toEqual(action);
    expect(actionJobSchema.safeParse({ ...action, actionId: 'act:1' }).success).toBe(false);
  });
});
