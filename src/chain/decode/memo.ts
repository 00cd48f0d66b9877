/** A Memo program instruction: its data is the text. */
export interface MemoInstruction {
  readonly program: 'memo';
  readonly type: 'memo';
  readonly text: string;
}

export function decodeMemoInstruction(data: Uint8Array): MemoInstruction {
  return { program: 'memo', type: 'memo', text: new TextDecoder('utf-8', { fatal: false }).decode(data) };
}
