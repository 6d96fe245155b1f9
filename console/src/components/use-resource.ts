import { useCallback, useEffect, useState } from 'preact/hooks';

/** Loads `load()` whenever `key` changes: its data, its error, whether it is loading, and a reload. */
export function useResource<T>(key: string, load: () => Promise<T>) {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true, error: null }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState({ data: null, error, loading: false }),
    );
    return () => {
      current = false;
    };
    // `load` is a new function at every render: `key` says when it means something new.
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload, setData: (data: T) => setState({ data, error: null, loading: false }) };
}
