import cluster from "node:cluster";

/**
 * A nudge from a cluster worker to its node's owner process (the primary), which runs the node's
 * background readers (decision 0100): work a worker queued is started at once, not at the owner's
 * next poll. Only a nudge — the work itself is a row in the database, found by the poll anyway.
 */

const TYPE = "carebridge:wake";

/** In a worker: tells the owner that work of `topic` was queued. Elsewhere: nothing (the caller kicks its own loop). */
export function wakeOwner(topic: string): void {
  if (cluster.isWorker && process.send) process.send({ type: TYPE, topic });
}

/** In the owner: `fn` runs whenever a worker says `topic` has work. Once per topic and process. */
const heard = new Set<string>();
export function onWake(topic: string, fn: () => void): void {
  if (!cluster.isPrimary || heard.has(topic)) return;
  heard.add(topic);
  cluster.on("message", (_worker, msg: { type?: string; topic?: string }) => {
    if (msg?.type === TYPE && msg.topic === topic) fn();
  });
}
