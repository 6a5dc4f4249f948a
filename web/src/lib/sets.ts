/** `set` with `value` in it (`on`) or not: a new set, for a checkbox list's state. */
export function toggled<T>(set: ReadonlySet<T>, value: T, on: boolean): Set<T> {
  const next = new Set(set);
  if (on) next.add(value);
  else next.delete(value);
  return next;
}
