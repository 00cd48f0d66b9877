import type { Config } from '../../src/config/index.ts';
import type { BacktestOptions } from '../../src/replay/backtest.ts';
import { riskLimitsFromConfig } from '../../src/risk/risk-limits-config.ts';
import type { RedisScope } from './redis-scope.ts';

/** The execution and risk settings `stratd backtest` derives from a configuration, on a test file's Redis scope. */
export function backtestSettings(config: Config, scope: RedisScope, run = 'run'): Pick<BacktestOptions, 'execution' | 'risk'> {
  const { execution, risk } = config;
  return {
    execution: { slippageBps: execution.slippageBps, priceDriftBps: execution.priceDriftBps, priorityFeeCapLamports: BigInt(execution.priorityFeeCapLamports), maxAccountSpaceBytes: BigInt(execution.maxAccountSpaceBytes), ultraMaxFeeBps: execution.ultraMaxFeeBps },
    risk: {
      redis: scope.redis,
      prefix: `${scope.prefix}backtest:${run}:`,
      limits: riskLimitsFromConfig(risk),
      breaker: { autoResetMs: risk.breakerAutoResetMs, protectiveStrategies: risk.protectiveStrategies },
      markPriceMaxAgeMs: execution.markPriceMaxAgeMs,
    },
  };
}
