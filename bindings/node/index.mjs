// toid as an ES module: `import { ulid } from 'toid'` or `import toid from 'toid'`.
// The CommonJS package (index.js) itself, re-exported: import and require
// share one addon and one set of process-wide generators and claims.
import { createRequire } from 'node:module';

const toid = createRequire(import.meta.url)('./index.js');

export default toid;
export const {
  ulid, uuidv7, newBytes, newMany, newManyBytes, parse, isValid, time, inspect, uuidInfo,
  ulidToUuid, uuidToUlid, fromUuid, fromBytes, fromInt, make, timeBounds, configure, claim,
  formats, ID, Generator, Claim, ClaimError, libraryVersion,
} = toid;
const new_ = toid.new;
export { new_ as new };
