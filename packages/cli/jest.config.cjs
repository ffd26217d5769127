module.exports = require('./jest.shared.cjs')('unit');
