// Runs `switchboard serve` for the node tests (browser, AG-UI, A2A): the built binary in
// out/switchboard when there is one, else `go run`, on a free loopback port, with the memory
// store and a known dev secret. No dependencies, so every test folder can import it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// startServer starts the service in its own process group, so that stop also ends the binary
// `go run` starts, and waits until healthPath (/healthz) answers. goPackage, when set, is a
// program to `go run` instead of `switchboard serve` (it takes --addr too). It returns
// { proc, base, output(), exited(), stop() }.
export async function startServer({ devSecret, env = {}, goPackage, healthPath = '/healthz' }) {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const bin = path.join(repo, 'out', 'switchboard');
  const [cmd, args] = goPackage
    ? ['go', ['run', goPackage, '--addr', addr]]
    : existsSync(bin)
      ? [bin, ['serve', '--addr', addr]]
      : ['go', ['run', './cmd/switchboard', 'serve', '--addr', addr]];
  const proc = spawn(cmd, args, {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SWITCHBOARD_STORE_DRIVER: 'memory', SWITCHBOARD_DEV_SECRET: devSecret, ...env },
  });
  let log = '';
  const keep = (b) => { log = (log + b.toString()).slice(-20000); };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  let exited = null;
  proc.on('exit', (code, signal) => { exited = { code, signal }; });
  const server = {
    proc,
    base: `http://${addr}`,
    output: () => log,
    exited: () => exited,
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => proc.once('exit', r));
      try { process.kill(-proc.pid, 'SIGTERM'); } catch { return; }
      const timer = setTimeout(() => { try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000);
      await gone;
      clearTimeout(timer);
    },
  };
  process.on('exit', () => {
    if (!exited) {
      try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone */ }
    }
  });

  const deadline = Date.now() + 180_000; // go run may compile first
  for (;;) {
    if (exited) throw new Error(`server exited early (${JSON.stringify(exited)}):\n${log}`);
    try {
      const res = await fetch(`${server.base}${healthPath}`);
      if (res.ok) return server;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`server not healthy in time:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
