/**
 * The default calibration (`calibration.ts`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed 20000:1,60000:2,120000:3; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * `node bench/entity-resolution/fit-calibration.mjs 20000:1,60000:2,120000:3` after a build
 * (and after `fit-model.mjs`, whose term-frequency weights it reads).
 * Fit: PERSON 861818 pairs (62032 matches), 14 iterations, log loss 0.0147 bits; ORG 795606 pairs (34710 matches), 16 iterations, log loss 0.0109 bits.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = {
  "PERSON": {
    "bias": -1.697,
    "tf": 0.8,
    "population": 0.8908,
    "levels": {
      "external_id": {
        "not_shared": -1.697,
        "other_kinds": 0.0002425
      },
      "last_name": {
        "different": -1.924,
        "exact": 0.5043,
        "one_edit": 2.108,
        "jw_0.92": -0.6433,
        "phonetic": 0.2146,
        "jw_0.88": -1.956
      },
      "first_name": {
        "exact": 3.84,
        "different": -7.37,
        "one_edit": 4.042,
        "initial": 0.9498,
        "jw_0.88": -1.055,
        "missing": -2.104
      },
      "state": {
        "different": -4.383,
        "same": 2.686
      },
      "middle": {
        "missing": 0.6436,
        "different": -7.515,
        "same": 5.175
      },
      "employer": {
        "missing": -3.294,
        "different": -5.884,
        "same": 7.481
      },
      "title": {
        "missing": -0.7213,
        "different": -2.088,
        "same": 1.112
      },
      "city": {
        "missing": -3.305,
        "same": 2.962,
        "same_elsewhere": 4.128,
        "different": -5.482
      }
    },
    "cross": {
      "different": {
        "different": -1.336,
        "same": -0.588
      },
      "exact": {
        "different": -1.301,
        "same": 1.805
      },
      "one_edit": {
        "same": 1.793,
        "different": 0.315
      },
      "jw_0.92": {
        "same": -0.009079,
        "different": -0.6342
      },
      "phonetic": {
        "different": -0.2994,
        "same": 0.5139
      },
      "jw_0.88": {
        "same": -0.8288,
        "different": -1.127
      }
    },
    "tfDifferentState": 0.198,
    "tfFuzzy": 0.4822
  },
  "ORG": {
    "bias": -4.448,
    "tf": 0.7889,
    "population": 0.7753,
    "levels": {
      "external_id": {
        "not_shared": -0.757,
        "other_kinds": -3.691
      },
      "name": {
        "different": -4.455,
        "token_set_0.6": 0.08834,
        "exact": 1.494,
        "one_edit": 1.498,
        "two_edits": -2.397,
        "token_set_1": 0.3728,
        "token_set_0.8": -1.05
      },
      "legal_form": {
        "different": -8.472,
        "missing": 0.1894,
        "same": 3.834
      },
      "state": {
        "different": -4.289,
        "missing": -1.436,
        "same": 1.276
      },
      "city": {
        "missing": -4.029,
        "different": -6.128,
        "same": 2.647,
        "same_elsewhere": 3.061
      }
    },
    "cross": {
      "different": {
        "different": -1.669,
        "missing": -1.645,
        "same": -1.141
      },
      "token_set_0.6": {
        "different": -1.17,
        "same": 1.364,
        "missing": -0.1062
      },
      "exact": {
        "same": -1.3,
        "different": 1.372,
        "missing": 1.421
      },
      "one_edit": {
        "same": 0.2546,
        "missing": 1.387,
        "different": -0.1436
      },
      "two_edits": {
        "different": -2.343,
        "missing": -0.8186,
        "same": 0.7647
      },
      "token_set_1": {
        "different": 0.1044,
        "missing": -1.365,
        "same": 1.633
      },
      "token_set_0.8": {
        "different": -0.4404,
        "missing": -0.3092,
        "same": -0.3003
      }
    },
    "tfDifferentState": 0.1703,
    "tfFuzzy": 0.6424
  }
};
