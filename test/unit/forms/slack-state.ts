// Simulates the view.state.values Slack sends on view_submission for the blocks we built: every
// element reports its current value in the shape Slack uses for that element type.
import type { KnownBlock } from '@slack/types';

type Json = Record<string, unknown>;
export type StateValues = Record<string, Record<string, unknown>>;

/** The state of one element as if the user submitted it without touching it. */
export function untouchedState(element: Json): Json {
  const type = element.type as string;
  switch (type) {
    case 'plain_text_input':
    case 'email_text_input':
    case 'url_text_input':
    case 'number_input':
      return { type, value: (element.initial_value as string | undefined) ?? null };
    case 'checkboxes':
    case 'multi_static_select':
    case 'multi_external_select':
      return { type, selected_options: (element.initial_options as unknown[] | undefined) ?? [] };
    case 'static_select':
    case 'external_select':
      return { type, selected_option: (element.initial_option as unknown) ?? null };
    case 'conversations_select':
      return { type, selected_conversation: (element.initial_conversation as string | undefined) ?? null };
    case 'timepicker':
      return { type, selected_time: (element.initial_time as string | undefined) ?? null };
    case 'datepicker':
      return { type, selected_date: (element.initial_date as string | undefined) ?? null };
    case 'datetimepicker':
      return { type, selected_date_time: (element.initial_date_time as number | undefined) ?? null };
    default:
      throw new Error(`no state simulation for ${type}`);
  }
}

/**
 * State values for `blocks`; `edits` replaces the fields of one element's state by block_id
 * (e.g. `{ field_count: { value: '12' } }`), like a user typing before submitting.
 */
export function submit(blocks: KnownBlock[], edits: Record<string, Json> = {}): StateValues {
  const values: StateValues = {};
  for (const block of blocks) {
    if (block.type !== 'input') continue;
    const element = block.element as unknown as Json;
    const blockId = block.block_id!;
    values[blockId] = {
      [element.action_id as string]: { ...untouchedState(element), ...(edits[blockId] ?? {}) },
    };
  }
  return values;
}

/** The option of a select element whose text is `text` (to simulate picking it). */
export function optionByText(block: KnownBlock, text: string): unknown {
  const element = (block as unknown as { element: { options: { text: { text: string } }[] } }).element;
  const option = element.options.find((o) => o.text.text === text);
  if (!option) throw new Error(`no option ${text}`);
  return option;
}
