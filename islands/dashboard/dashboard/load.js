// Loading one widget: a cancellable request, repeated every autoUpdate seconds, each load
// restarting the timer (spec 02 sections 4 and 9). Free of React so that the tests can drive it
// with a fake client and fake timers.
import { autoUpdateDelay } from './rules.js';

/**
 * Start loading widget `id` through `client.get`; `onData(data)` gets each result, `onError`
 * each failure other than a cancellation. Returns { reload, stop }: reload() cancels the running
 * request and loads now (restarting the timer); stop() cancels everything.
 */
export function startWidgetLoader(id, autoUpdate, client, { onData, onError, onLoading, timers = globalThis } = {}) {
  let controller = null;
  let timer = null;
  let stopped = false;

  const schedule = () => {
    const delay = autoUpdateDelay(autoUpdate);
    if (delay && !stopped) timer = timers.setTimeout(load, delay);
  };

  async function load() {
    timers.clearTimeout(timer);
    timer = null;
    controller?.abort();
    const mine = new AbortController();
    controller = mine;
    onLoading?.();
    try {
      const data = await client.get(`dashboard-widgets/${id}`, { signal: mine.signal });
      if (mine.signal.aborted || stopped) return;
      onData?.(data);
    } catch (error) {
      if (mine.signal.aborted || stopped || error?.name === 'AbortError') return;
      onError?.(error);
    }
    if (controller === mine) schedule();
  }

  load();
  return {
    reload: load,
    stop() {
      stopped = true;
      timers.clearTimeout(timer);
      controller?.abort();
    },
  };
}
