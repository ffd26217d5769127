/**
 * The default calibration (`calibration.ts`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed 20000:1,60000:2,120000:3; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * `node bench/entity-resolution/fit-calibration.mjs 20000:1,60000:2,120000:3` after a build
 * (and after `fit-model.mjs`, whose term-frequency weights it reads).
 * Fit: PERSON 822211 pairs (61605 matches), 14 iterations, log loss 0.0198 bits; ORG 759583 pairs (34598 matches), 16 iterations, log loss 0.0121 bits.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = {
  "PERSON": {
    "bias": -1.29,
    "tf": 0.8038,
    "population": 0.8214,
    "levels": {
      "external_id": {
        "not_shared": -1.291,
        "other_kinds": 0.0004787
      },
      "last_name": {
        "different": -3.932,
        "exact": -1.336,
        "one_edit": 3.623,
        "jw_0.92": 1.488,
        "phonetic": -1.539,
        "jw_0.88": 0.4058
      },
      "first_name": {
        "exact": 3.979,
        "different": -7.282,
        "one_edit": 4.148,
        "initial": 1.028,
        "jw_0.88": -0.8661,
        "missing": -2.297
      },
      "state": {
        "different": -3.837,
        "same": 2.546
      },
      "middle": {
        "missing": 0.9557,
        "different": -7.682,
        "same": 5.436
      },
      "employer": {
        "missing": -3.096,
        "different": -5.787,
        "same": 7.593
      },
      "title": {
        "missing": -0.5625,
        "different": -1.974,
        "same": 1.246
      },
      "city": {
        "missing": -1.784,
        "same": 4.467,
        "different": -3.973
      }
    },
    "cross": {
      "different": {
        "different": -2.368,
        "same": -1.564
      },
      "exact": {
        "different": -1.969,
        "same": 0.6334
      },
      "one_edit": {
        "same": 2.464,
        "different": 1.158
      },
      "jw_0.92": {
        "same": 1.086,
        "different": 0.4023
      },
      "phonetic": {
        "different": -0.9379,
        "same": -0.6014
      },
      "jw_0.88": {
        "same": 0.5283,
        "different": -0.1225
      }
    },
    "tfDifferentState": 0.1761
  },
  "ORG": {
    "bias": -3.587,
    "tf": 0.687,
    "population": 0.4432,
    "levels": {
      "external_id": {
        "not_shared": -0.3119,
        "other_kinds": -3.275
      },
      "name": {
        "different": -6.396,
        "token_set_0.6": -2.114,
        "exact": 0.315,
        "one_edit": 6.22,
        "two_edits": 2.447,
        "token_set_1": -1.653,
        "token_set_0.8": -2.406
      },
      "legal_form": {
        "different": -8.176,
        "missing": 0.5199,
        "same": 4.069
      },
      "state": {
        "different": -3.597,
        "missing": -1.309,
        "same": 1.32
      },
      "city": {
        "missing": -2.644,
        "different": -4.772,
        "same": 3.829
      }
    },
    "cross": {
      "different": {
        "different": -2.325,
        "missing": -2.253,
        "same": -1.819
      },
      "token_set_0.6": {
        "different": -1.86,
        "same": 0.591,
        "missing": -0.8447
      },
      "exact": {
        "same": -1.877,
        "different": 1.435,
        "missing": 0.757
      },
      "one_edit": {
        "same": 1.763,
        "missing": 2.854,
        "different": 1.603
      },
      "two_edits": {
        "different": -0.8366,
        "missing": 0.7429,
        "same": 2.541
      },
      "token_set_1": {
        "different": -0.7071,
        "missing": -1.807,
        "same": 0.8605
      },
      "token_set_0.8": {
        "different": -0.9062,
        "missing": -0.7598,
        "same": -0.74
      }
    },
    "tfDifferentState": 0.1195
  }
};
