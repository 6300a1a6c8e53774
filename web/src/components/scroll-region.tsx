import type { ReactNode } from 'react';

/**
 * A table that may scroll sideways (phones): keyboard users must be able to focus it to scroll
 * it (axe's scrollable-region-focusable), and a labelled region tells a screen reader what it is.
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a <section> would add a landmark per table; a region div is what axe asks for here.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled region must be focusable to be scrolled by keyboard.
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
