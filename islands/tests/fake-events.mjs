// Events as the page's listeners see them in the node tests: preventDefault() is recorded in
// defaultPrevented. Not a test file itself (node --test runs *.test.mjs).

/** An event of `type` on `target`; `extra` adds or overrides fields (a key, a modifier). */
export function fakeEvent(type, target, extra = {}) {
  return {
    type,
    target,
    button: 0,
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
    ...extra,
  };
}
