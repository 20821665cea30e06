/**
 * Worker-thread entry of `cachet demo` (see demo-pool.ts): runs the tasks it is sent, one at a
 * time, and posts progress and each result back.
 */
import { parentPort } from 'node:worker_threads';
import { type DemoTask, runDemoTask } from './demo-task.js';

export type WorkerReply =
  | { kind: 'progress'; id: number; done: number; total: number }
  | { kind: 'done'; id: number; result: Awaited<ReturnType<typeof runDemoTask>> }
  | { kind: 'failed'; id: number; message: string; stack?: string };

const port = parentPort;
if (port) {
  port.on('message', async ({ id, task }: { id: number; task: DemoTask }) => {
    const post = (reply: WorkerReply) => port.postMessage(reply);
    try {
      let reported = 0;
      const result = await runDemoTask(task, (done, total) => {
        // A few updates per run are enough for a progress line.
        if (done === total || done - reported >= Math.max(1, Math.floor(total / 50))) {
          reported = done;
          post({ kind: 'progress', id, done, total });
        }
      });
      post({ kind: 'done', id, result });
    } catch (error) {
      post({
        kind: 'failed',
        id,
        message: error instanceof Error ? error.message : String(error),
        ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
      });
    }
  });
}
