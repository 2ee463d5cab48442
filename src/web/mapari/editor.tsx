import type { CostRefusal } from '../../http/cost-budget';
import type { MappingChange } from '../../services/operations/mapping-history';
import type { MappingRecord, PendingOperation } from '../../services/operations/mappings';
import type { TextRuleRecord } from '../../services/operations/text-rules';
import { Notice } from '../notice';
import { PendingList } from './pending';
import { TextRules } from './rules';
import { SavedMappings } from './saved';

export type EditorNotice = { kind: 'ok'; text: string } | { kind: 'error'; cod: 'FORMULAR_INVALID' | 'CONFLICT_STARE' | 'NEGASIT' | CostRefusal['cod']; cauza: string };

/**
 * The mapping editor's fragment: the codes waiting for a mapping (with how many submissions
 * each holds and the suggestion, preselected only when sure), saved one at a time or all at
 * once after a confirmation; the saved mappings, editable, with their history; the text rules.
 */
export function MappingEditor(props: {
  pending: PendingOperation[];
  saved: MappingRecord[];
  history: ReadonlyMap<string, MappingChange[]>;
  rules: TextRuleRecord[];
  nomenclator: ReadonlyMap<string, string>;
  notice?: EditorNotice;
  /** A clerk's picks to keep on the rows after a refusal (code → registry code). */
  chosen?: ReadonlyMap<string, string>;
}) {
  return (
    <section id="mapari">
      {props.notice ? <Notice {...props.notice} /> : null}
      <h2>Coduri de mapat</h2>
      <PendingList pending={props.pending} nomenclator={props.nomenclator} chosen={props.chosen} />
      <h2>Mapări salvate</h2>
      <SavedMappings saved={props.saved} nomenclator={props.nomenclator} history={props.history} />
      <h2>Reguli de text</h2>
      <TextRules rules={props.rules} nomenclator={props.nomenclator} />
    </section>
  );
}
