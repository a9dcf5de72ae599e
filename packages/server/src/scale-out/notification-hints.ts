/**
 * A hint per key and turn of the event loop: the notifications a storm stores in one turn (thousands of
 * one key) tell the other hosts' streams once that the key has news, not once each (each hint is
 * sealed and read by every host). Returns what to call for each notification stored.
 */
export function oncePerTurnByKey(send: (keyId: number) => void): (keyId: number) => void {
  const due = new Set<number>();
  return (keyId) => {
    if (due.size === 0) {
      setImmediate(() => {
        const keys = [...due];
        due.clear();
        for (const key of keys) send(key);
      });
    }
    due.add(keyId);
  };
}
