import { Agent, request } from 'undici';

/**
 * Requests per second for `total` GETs kept `concurrency` deep over keep-alive connections, of `url` or of each of
 * several in turn. The load comes
 * from this process, on the same two cores as the server: compare only ratios measured in one run.
 */
export async function throughput(
  url: string | readonly string[],
  opts: { ca?: string; headers?: Record<string, string>; total: number; concurrency: number },
): Promise<number> {
  const dispatcher = new Agent({
    connect: { ca: opts.ca, rejectUnauthorized: true },
    connections: opts.concurrency,
    pipelining: 1,
  });
  const urls = typeof url === 'string' ? [url] : url;
  let sent = 0;
  const worker = async () => {
    while (sent < opts.total) {
      const target = urls[sent++ % urls.length];
      const r = await request(target, { headers: opts.headers, dispatcher });
      await r.body.arrayBuffer();
      if (r.statusCode !== 200) throw new Error(`GET ${target} answered ${r.statusCode}`);
    }
  };
  // Warm-up: establish connections and JIT the paths.
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () =>
      (await request(urls[0], { headers: opts.headers, dispatcher })).body.arrayBuffer(),
    ),
  );
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await dispatcher.close();
  return opts.total / seconds;
}
