// A real redis-server for the queue tests: on a free loopback port, in its own folder, persistence on request; stopped, killed and restarted by the test. Absent → null (tests skip with a message).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

function locate(): string | null {
  if (process.env.REDIS_SERVER && existsSync(process.env.REDIS_SERVER)) return process.env.REDIS_SERVER;
  if (existsSync("/usr/bin/redis-server")) return "/usr/bin/redis-server";
  const r = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** The redis-server binary, or null. */
export const REDIS_SERVER: string | null = locate();
export const REDIS_SKIP_MESSAGE = "redis-server not found (install the Debian package redis-server): queue tests skipped";

/** A port nothing listens on right now (bound and released by this process). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** True when something on the port answers PING with PONG (within a second). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (d) => {
      reply += d.toString();
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"));
    });
  });
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Kill it (SIGKILL: no shutdown save; with persistence the append-only file already holds every write). */
  kill(): Promise<void>;
  /** Start it again on the same port and folder (so with persistence it reloads its data). */
  start(): Promise<void>;
  /** Stop it and remove its folder. */
  dispose(): Promise<void>;
}

/** Start redis-server on 127.0.0.1:<free port>; `persistent` turns on the append-only file, fsynced at every write. */
export async function startRedis(persistent: boolean): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error(REDIS_SKIP_MESSAGE);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "vx-redis-"));
  let child: ChildProcess | null = null;
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"];
  if (persistent) args.push("--appendonly", "yes", "--appendfsync", "always");
  else args.push("--appendonly", "no");

  const start = async () => {
    const proc = spawn(REDIS_SERVER!, args, { stdio: ["ignore", "ignore", "pipe"] });
    child = proc;
    // Ready when it answers PING.
    for (let i = 0; i < 200; i++) {
      if (await ping(port)) return;
      if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error(`redis-server did not answer on port ${port}`);
  };
  const kill = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((res) => {
      c.once("exit", () => res());
      c.kill("SIGKILL");
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    kill,
    start,
    dispose: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
