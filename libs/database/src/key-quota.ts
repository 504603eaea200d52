import type { EntityManager } from 'typeorm';
import { ApiKeyEntity } from './entities';

/**
 * Charges `calls` to a key in one conditional UPDATE, so that processes charging the same key at once never pass
 * its quota together: true when charged, false when its calls left cannot cover them (nothing is charged then).
 * Every key counts its calls; the quota, when it has one, is only the limit. A negative `calls` gives calls back
 * (never below 0: calls made before every key was counted were not recorded).
 */
export async function chargeKeyCalls(manager: EntityManager, keyId: number, calls: number): Promise<boolean> {
  const result = await manager
    .createQueryBuilder()
    .update(ApiKeyEntity)
    .set({ callsUsed: () => 'CASE WHEN calls_used + :calls < 0 THEN 0 ELSE calls_used + :calls END' })
    .where('id = :id AND (quota IS NULL OR calls_used + :calls <= quota)', { id: keyId, calls })
    .setParameters({ calls })
    .execute();
  return (result.affected ?? 0) > 0;
}

/** Calls the key has left, or null when it has no quota (or no longer exists). */
export async function callsLeft(manager: EntityManager, keyId: number): Promise<number | null> {
  const key = await manager.findOne(ApiKeyEntity, { where: { id: keyId }, select: { quota: true, callsUsed: true } });
  return key?.quota == null ? null : Math.max(0, key.quota - key.callsUsed);
}
