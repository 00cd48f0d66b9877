/**
 * Every instruction of the Jupiter DCA program (DCA265…, the time-based Recurring v1 orders), by
 * Anchor discriminator, from its IDL (names in Anchor's snake_case; the IDL writes openDcaV2). A
 * trader opens, deposits into, withdraws from and closes an order; the fills, transfer and
 * end_and_close are the keeper's, withdraw_fees the admin's.
 */
export const DCA_INSTRUCTIONS = {
  open_dca: '2441b93601d264a3',
  open_dca_v2: '8e772b6da2340bb1',
  close_dca: '16072162a8b722f3',
  withdraw: 'b712469c946da122',
  deposit: 'f223c68952e1f2b6',
  withdraw_fees: 'c6d4ab6d90d7ae59',
  initiate_flash_fill: '8fcd03bfa2d7f531',
  fulfill_flash_fill: '7340e24e21d369a2',
  initiate_dlmm_fill: '9bc150795b93febb',
  fulfill_dlmm_fill: '01e676fb2db165bb',
  transfer: 'a334c8e78c0345ba',
  end_and_close: '537da645f7fc6785',
} as const;

export type DcaInstructionName = keyof typeof DCA_INSTRUCTIONS;
