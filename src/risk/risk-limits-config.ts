import { decimalToScaled } from '../api/amounts.ts';
import { MINTS } from '../api/mints.ts';
import type { Config } from '../config/index.ts';
import { decimalTextOfNumber } from '../api/number-text.ts';
import type { RiskLimits } from './risk-gate.ts';

/**
 * The risk gate's limits from the config's risk section: the daemon reads them through its live
 * holder on every check, so a reload (SIGHUP, `stratd reload`) judges the next action by them.
 */
export function riskLimitsFromConfig(risk: Config['risk']): RiskLimits {
  const leverage = (value: number) => decimalToScaled(decimalTextOfNumber(value) ?? '0', 6);
  return {
    maxNotionalPerActionUsd: BigInt(risk.maxNotionalPerActionUsd),
    maxActionsPerStrategyPerHour: risk.maxActionsPerStrategyPerHour,
    maxNotionalPerHourUsd: BigInt(risk.maxNotionalPerHourUsd),
    dailyLossStopUsd: BigInt(risk.dailyLossStopUsd),
    circuitBreakerRejections: risk.circuitBreakerRejections,
    adding: {
      maxLeverage: { [MINTS.SOL]: leverage(risk.maxLeverage.SOL), [MINTS.ETH]: leverage(risk.maxLeverage.ETH), [MINTS.BTC]: leverage(risk.maxLeverage.BTC) },
      maxNotionalPerMarketUsd: BigInt(risk.maxNotionalPerMarketUsd),
      maxNotionalPerWalletUsd: BigInt(risk.maxNotionalPerWalletUsd),
      maxOpenPositions: risk.maxOpenPositions,
      maxSpendPerHourUsd: BigInt(risk.maxSpendPerHourUsd),
      maxBelowMarketBps: risk.maxBelowMarketBps,
    },
  };
}
