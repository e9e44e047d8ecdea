/**
 * The connection pools of one command run. A process that exits needs no closing, but a command run inside a
 * longer-lived process (an embedding program, the in-process tests) must not leave kept-alive sockets behind.
 */
export interface ConnectionPools {
  opened(pool: { close(): Promise<void> }): void;
  closeAll(): Promise<void>;
}

export function connectionPools(): ConnectionPools {
  const open = new Set<{ close(): Promise<void> }>();
  return {
    opened: (pool) => void open.add(pool),
    async closeAll() {
      const pools = [...open];
      open.clear();
      await Promise.all(pools.map((p) => p.close().catch(() => {})));
    },
  };
}
