/**
 * Nativa bid adapter for Prebid.js (native). The spec lives in nativaBidSpec.js; this file is the
 * Prebid module that registers it. In a Prebid.js checkout it goes in modules/ with the spec;
 * with Prebid as an npm dependency, bundle it next to `import pbjs from 'prebid.js'` (see README).
 */
import { registerBidder } from '../src/adapters/bidderFactory.js';
import { spec } from './nativaBidSpec.js';

registerBidder(spec);

export { spec };
