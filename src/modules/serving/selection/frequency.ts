import type { Redis } from 'ioredis';

/**
 * Frequency caps count, per visitor, campaign and day (the platform's day), how many of the
 * campaign's teasers the visitor has seen. The counters live in Redis when instances share one
 * (a visitor's page views land on any instance), else in this process. They expire after two
 * days: a cap is about today only.
 *
 * The count is of viewable impressions: serving only reads it, and `recordView` is called once
 * per view the beacon reported, after the impression buffer's flush committed the view's token
 * (ServingEngine.countTowardCaps), so a replayed token never counts twice.
 */
export interface FrequencyStore {
  /** Views today per campaign id for one visitor (campaigns it has not seen are absent). */
  viewsToday(visitor: string, day: string): Promise<Map<number, number>>;
  recordView(visitor: string, campaignId: number, day: string): Promise<void>;
}

const TTL_MS = 2 * 86_400_000;

/** In-process counters, bounded: the oldest visitors are forgotten first when it is full. */
export function memoryFrequencyStore(limit = 100_000): FrequencyStore {
  const visitors = new Map<string, Map<number, number>>();
  return {
    async viewsToday(visitor, day) {
      return new Map(visitors.get(`${day}|${visitor}`) ?? []);
    },
    async recordView(visitor, campaignId, day) {
      const key = `${day}|${visitor}`;
      let counts = visitors.get(key);
      if (counts === undefined) {
        if (visitors.size >= limit) {
          // Maps keep insertion order: the first key is the one seen first, from an older day if any.
          const oldest = visitors.keys().next();
          if (oldest.done !== true) visitors.delete(oldest.value);
        }
        counts = new Map();
        visitors.set(key, counts);
      }
      counts.set(campaignId, (counts.get(campaignId) ?? 0) + 1);
    },
  };
}

/** One hash per visitor and day, a field per campaign. */
export function redisFrequencyStore(redis: Redis, prefix: string): FrequencyStore {
  const keyOf = (visitor: string, day: string) => `${prefix}freq:${day}:${visitor}`;
  return {
    async viewsToday(visitor, day) {
      const fields = await redis.hgetall(keyOf(visitor, day));
      const counts = new Map<number, number>();
      for (const [campaign, views] of Object.entries(fields)) counts.set(Number(campaign), Number(views));
      return counts;
    },
    async recordView(visitor, campaignId, day) {
      const key = keyOf(visitor, day);
      await redis.multi().hincrby(key, String(campaignId), 1).pexpire(key, TTL_MS).exec();
    },
  };
}
