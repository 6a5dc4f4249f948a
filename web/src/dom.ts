export type Child = Node | string | null | undefined | false;
type Props = Record<string, string | boolean | ((event: Event) => void)>;

/** Creates an element: `on*` props become listeners, booleans toggle attributes, text is escaped. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (typeof value === 'boolean') element.toggleAttribute(key, value);
    else element.setAttribute(key, value);
  }
  element.append(...present(...children));
  return element;
}

/** The children that are there: for `replaceChildren`, which takes no optional ones. */
export const present = (...children: Child[]): (Node | string)[] => children.filter((child): child is Node | string => !!child);

/**
 * For a series of loads into one place: `begin()` starts one and returns whether it is still
 * the newest, so an answer that arrives after a later load began is dropped, not shown.
 */
export function newestOnly(): { begin(): () => boolean } {
  let generation = 0;
  return {
    begin() {
      const mine = ++generation;
      return () => mine === generation;
    },
  };
}
