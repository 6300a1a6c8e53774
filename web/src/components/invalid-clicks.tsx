import type { ReactNode } from 'react';
import { count, money } from '../format.ts';
import { ScrollRegion } from './scroll-region.tsx';

/** One reason's line of an invalid-traffic answer: refused on arrival, or refunded with an amount. */
export interface InvalidClicksRow {
  outcome: 'refused' | 'refunded';
  reason: string;
  clicks: number;
  /** The money given back (advertisers) or taken back (publishers), in currency units. */
  amount: number;
}

/** The table's words, in the area's own catalogue. */
export interface InvalidClicksWords {
  title: string;
  lead: string;
  table: string;
  reason: string;
  outcome: string;
  clicks: string;
  amount: string;
  none: string;
  outcomeText(outcome: InvalidClicksRow['outcome']): string;
  reasonText(reason: string): string;
}

/**
 * Invalid clicks of a period by reason, as advertisers (what was filtered) and publishers (what
 * was not paid) see them: one section, each area bringing its words.
 */
export function InvalidClicksSection({
  id,
  words,
  rows,
}: {
  id: string;
  words: InvalidClicksWords;
  rows: InvalidClicksRow[];
}): ReactNode {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{words.title}</h2>
      <p className="hint">{words.lead}</p>
      <ScrollRegion label={words.table}>
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">{words.reason}</th>
              <th scope="col">{words.outcome}</th>
              <th scope="col">{words.clicks}</th>
              <th scope="col">{words.amount}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.outcome}-${row.reason}`}>
                <th scope="row">{words.reasonText(row.reason)}</th>
                <td data-label={words.outcome}>{words.outcomeText(row.outcome)}</td>
                <td data-label={words.clicks}>{count(row.clicks)}</td>
                <td data-label={words.amount}>{row.outcome === 'refused' ? '—' : money(row.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <p className="empty">{words.none}</p>}
      </ScrollRegion>
    </section>
  );
}
