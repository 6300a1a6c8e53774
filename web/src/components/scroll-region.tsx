import { type ReactNode, useEffect, useRef, useState } from 'react';

/** Which sides of a scrolled box hide more of its content. */
interface HiddenSides {
  left: boolean;
  right: boolean;
}

/**
 * A table that may scroll sideways (phones): keyboard users must be able to focus it to scroll
 * it (axe's scrollable-region-focusable), and a labelled region tells a screen reader what it is.
 * A phone shows no scrollbar until one scrolls, so a shadow marks each side where more columns
 * wait (`more-left`, `more-right`): without it a table cut after four columns looks whole.
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [hidden, setHidden] = useState<HiddenSides>({ left: false, right: false });
  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    const measure = () => {
      const left = element.scrollLeft > 1;
      const right = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
      setHidden((before) => (before.left === left && before.right === right ? before : { left, right }));
    };
    measure();
    element.addEventListener('scroll', measure, { passive: true });
    // The box changes with the window, the table with its rows and the language.
    const resized = new ResizeObserver(measure);
    resized.observe(element);
    for (const child of element.children) resized.observe(child);
    return () => {
      element.removeEventListener('scroll', measure);
      resized.disconnect();
    };
  }, []);
  const className = `table-wrap${hidden.left ? ' more-left' : ''}${hidden.right ? ' more-right' : ''}`;
  return (
    // biome-ignore lint/a11y/useSemanticElements: a <section> would add a landmark per table; a region div is what axe asks for here.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolled region must be focusable to be scrolled by keyboard.
    <div ref={box} className={className} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
