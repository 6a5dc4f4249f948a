import { useEffect, useRef, useState } from 'preact/hooks';
import { handledAuthFailure } from '../state/session';
import { errorText } from './errors';

/**
 * How the console's pages load, change and fail, in one place: `useResource` for what a page
 * reads, `usePages` for a list read a page at a time, `useAction` for what a person's click
 * changes, and `failureText` for any other request a page makes. A 401 (the session expired,
 * was revoked, or the password changed elsewhere) signs out with the reason, which the sign-in
 * page shows; any other failure is the API's words, shown where the page puts them.
 */

/** A failed request as a page shows it: the API's words, or null when it signed the person out (a 401). */
export function failureText(failure: unknown): string | null {
  return handledAuthFailure(failure) ? null : errorText(failure);
}

export interface Resource<T> {
  /** The newest answer; undefined until the first arrives. */
  readonly data: T | undefined;
  /** Why the newest load failed (null after one that did not, and while the person is signed out by it). */
  readonly error: string | null;
  /** A load is under way: the first, or one after a change. */
  readonly loading: boolean;
  /** Reads again (after a change): supersedes a load under way. */
  readonly reload: () => Promise<void>;
  /** Puts a value in place without asking the server: what a change answered, or a choice shown at once. */
  readonly set: (data: T) => void;
}

/**
 * What a component reads: `load` runs when it mounts and again whenever `deps` change. Only the
 * newest load counts: an older answer that arrives after it (or after the component is gone)
 * is dropped. The answer shown stays until the next one replaces it.
 */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({
    data: undefined,
    error: null,
    loading: true,
  });
  // The newest render's closure: a reload after a renewal reads with the new session.
  const latest = useRef(load);
  latest.current = load;
  const generation = useRef(0);

  async function reload(): Promise<void> {
    const mine = ++generation.current;
    setState((current) => ({ ...current, loading: true }));
    try {
      const data = await latest.current();
      if (mine === generation.current) setState({ data, error: null, loading: false });
    } catch (failure) {
      if (mine === generation.current) setState((current) => ({ ...current, error: failureText(failure), loading: false }));
    }
  }

  useEffect(() => {
    void reload();
    return () => void ++generation.current;
  }, deps);

  return { ...state, reload, set: (data: T) => setState((current) => ({ ...current, data })) };
}

/** One page of a list, as the API's cursor-paged routes answer. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

export interface Pages<T> {
  /** Every item read so far, the first page's first. */
  readonly items: readonly T[];
  /** Where the next page starts; null when there is none. */
  readonly cursor: string | null;
  readonly loading: boolean;
  readonly error: string | null;
  /** Reads the next page below the items. */
  readonly more: () => Promise<void>;
}

/**
 * A list read a page at a time: the first page when the component mounts and whenever `deps`
 * change (a new filter), which supersedes any load under way; then `more` on request, dropped
 * if a first page is asked for meanwhile. The items shown stay until the new first page arrives.
 */
export function usePages<T>(loadPage: (cursor: string | null) => Promise<Page<T>>, deps: readonly unknown[]): Pages<T> {
  const [state, setState] = useState<{ items: readonly T[]; cursor: string | null; error: string | null; loading: boolean }>({
    items: [],
    cursor: null,
    error: null,
    loading: true,
  });
  const latest = useRef(loadPage);
  latest.current = loadPage;
  const generation = useRef(0);

  async function load(fresh: boolean, cursor: string | null): Promise<void> {
    const mine = fresh ? ++generation.current : generation.current;
    setState((current) => ({ ...current, loading: true }));
    try {
      const page = await latest.current(cursor);
      if (mine !== generation.current) return;
      setState((current) => ({
        items: fresh ? page.items : [...current.items, ...page.items],
        cursor: page.nextCursor,
        error: null,
        loading: false,
      }));
    } catch (failure) {
      if (mine === generation.current) setState((current) => ({ ...current, error: failureText(failure), loading: false }));
    }
  }

  useEffect(() => {
    void load(true, null);
    return () => void ++generation.current;
  }, deps);

  return { ...state, more: () => load(false, state.cursor) };
}

export interface Action<K extends string> {
  /** Which action is under way, or null. */
  readonly busy: K | null;
  /** Why the last one failed. */
  readonly error: string | null;
  /**
   * Runs `work` as `which`: clears the last failure, marks it busy until it settles, and shows
   * its failure (failureText). Resolves to whether it succeeded.
   */
  readonly run: (which: K, work: () => Promise<unknown>) => Promise<boolean>;
  /** Shows a message of the page's own in the action's place (or clears it). */
  readonly setError: (message: string | null) => void;
}

/** What a person's click changes: one action at a time, its failure shown in place. */
export function useAction<K extends string>(): Action<K> {
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(which: K, work: () => Promise<unknown>): Promise<boolean> {
    setBusy(which);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failureText(failure));
      return false;
    } finally {
      setBusy(null);
    }
  }

  return { busy, error, run, setError };
}
