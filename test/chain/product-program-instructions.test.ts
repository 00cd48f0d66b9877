// The discriminator tables of the product programs (trigger's Limit Order v2, DCA, aggregator v6,
// Dynamic Bonding Curve) must be exactly what the programs' IDLs say: every instruction, no more,
// each with its Anchor discriminator. The instruction gate of the policy judges by these tables.
import { describe, expect, it } from 'vitest';
import { AGGREGATOR_INSTRUCTIONS } from '../../src/chain/programs/aggregator/instructions.ts';
import { DBC_INSTRUCTIONS } from '../../src/chain/programs/dbc/instructions.ts';
import { DCA_INSTRUCTIONS } from '../../src/chain/programs/dca/instructions.ts';
import { LIMIT_ORDER_INSTRUCTIONS } from '../../src/chain/programs/limit-order/instructions.ts';
import { idlInstructionTable, PROGRAM_IDL_FILES, PROGRAM_IDLS_SKIP_REASON, programIdlsAvailable } from '../support/program-idls.ts';

const TABLES = {
  limitOrder: LIMIT_ORDER_INSTRUCTIONS,
  dca: DCA_INSTRUCTIONS,
  aggregator: AGGREGATOR_INSTRUCTIONS,
  dbc: DBC_INSTRUCTIONS,
} as const;

describe.skipIf(!programIdlsAvailable())(programIdlsAvailable() ? 'product program instructions against their IDLs' : PROGRAM_IDLS_SKIP_REASON, () => {
  for (const [program, table] of Object.entries(TABLES) as Array<[keyof typeof TABLES, Record<string, string>]>) {
    it(`${program}: every instruction of ${PROGRAM_IDL_FILES[program].join(' and ')}, with its discriminator`, () => {
      expect(table).toEqual(idlInstructionTable(PROGRAM_IDL_FILES[program]));
    });
  }
});

describe('product program instructions', () => {
  it('carry the discriminators the IDLs\' sources quote (checked without the IDL files too)', () => {
    expect(AGGREGATOR_INSTRUCTIONS).toMatchObject({ route: 'e517cb977ae3ad2a', shared_accounts_route: 'c1209b3341d69c81', route_v2: 'bb64facc31c4af14', shared_accounts_exact_out_route_v2: '3560e5cad8bbfa18' });
    expect(DCA_INSTRUCTIONS).toMatchObject({ open_dca_v2: '8e772b6da2340bb1', close_dca: '16072162a8b722f3' });
  });
});
