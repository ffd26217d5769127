// bench/rag/make-corpus.mjs: writes the labelled RAG corpus made for this
// project — PDF (pdf-lib), DOCX (docx), XLSX (exceljs) and Markdown files of
// a fictional company, each section carrying facts generated from a seed —
// and questions.json, one question per fact with the fact sentence (or table
// row) that answers it. Deterministic: the same seed writes the same files.
//
//   node bench/rag/make-corpus.mjs [seed=11]
//
// Some questions carry a typo or a different word form (as people type them),
// some name a document type or a year (query analysis turns those into filters).
// Beside the question worded like its fact, each fact has a paraphrase a user
// would type (other word forms and words: "who is in charge of" for "has
// led", "renegotiating port fees" for "port fee renegotiation"), and about a
// third a question with the distinctive name misspelt (a codename, product
// or topic, where the lexical index has nothing to match). Those extra
// questions come from a second generator, so the documents do not change.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from 'docx';
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'corpus');
const seed = Number(process.argv[2] ?? 11);

let s = seed >>> 0;
const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const int = (a, b) => a + Math.floor(rnd() * (b - a + 1));

const FIRST = ['Amara', 'Bjorn', 'Chiara', 'Dmitri', 'Elif', 'Farah', 'Goran', 'Hana', 'Idris', 'Jonas', 'Keiko', 'Lucia', 'Mateo', 'Nadia', 'Oskar', 'Priya', 'Quentin', 'Rosa', 'Stefan', 'Tariq', 'Ulla', 'Viktor', 'Wanjiru', 'Yusuf', 'Zofia'];
const LAST = ['Okafor', 'Lindqvist', 'Moretti', 'Volkov', 'Demir', 'Haddad', 'Petrovic', 'Sato', 'Rahman', 'Weber', 'Tanaka', 'Ferreira', 'Alvarez', 'Kowalski', 'Nilsson', 'Iyer', 'Dubois', 'Castillo', 'Brandt', 'Aziz', 'Koskinen', 'Horvath', 'Mwangi', 'Celik', 'Nowak'];
const SYL = ['ka', 'lo', 'mir', 'ven', 'tor', 'sa', 'del', 'quin', 'ra', 'zu', 'bel', 'nox', 'ter', 'vi', 'dan', 'por', 'lis', 'gan'];
const SITES = ['Rotterdam', 'Gdansk', 'Valencia', 'Aarhus', 'Tallinn', 'Genoa', 'Antwerp', 'Bergen', 'Porto', 'Hamburg', 'Marseille', 'Riga'];
const DEPTS = ['logistics', 'finance', 'engineering', 'procurement', 'safety', 'legal', 'customer support', 'data platform'];
const PRODUCTS = ['hydraulic pump', 'mooring line', 'bilge sensor', 'deck crane motor', 'ballast valve', 'radar mast', 'fuel filter', 'anchor winch', 'sonar module', 'life raft', 'propeller shaft', 'gearbox seal', 'navigation light', 'fire suppression unit', 'cargo lashing kit', 'ventilation fan'];
const ACTIONS = [
  ['report a safety incident', 'the incident'],
  ['submit travel expenses', 'the end of the trip'],
  ['complete the data protection training', 'their start date'],
  ['return company equipment', 'their last working day'],
  ['register a visitor', 'the visit'],
  ['file an overtime request', 'the overtime worked'],
  ['request a security badge', 'the transfer'],
  ['archive signed contracts', 'signature'],
];
const TOPICS = ['warehouse automation', 'fleet fuel hedging', 'supplier audit', 'crew rotation', 'port fee renegotiation', 'cold chain monitoring', 'cybersecurity drill', 'carbon reporting', 'spare parts pooling', 'customs pre-clearance', 'hull cleaning schedule', 'satellite connectivity'];
const DECISIONS = ['approve a pilot with two vendors', 'postpone until the next quarter', 'allocate an extra engineer', 'move the work to the Gdansk office', 'cancel the current contract', 'run a tender in the spring', 'extend the trial by six weeks', 'adopt the vendor proposal as written'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const FILLER = [
  'This section is reviewed once a year by the owning department and changes are announced on the intranet.',
  'Questions about this topic can be raised with the responsible manager or through the service desk.',
  'The figures below are taken from the planning system and were checked by the controlling team.',
  'All teams are expected to follow the procedure described here unless a written exception was granted.',
  'Earlier versions of this text are kept in the document archive for audit purposes.',
  'Where local regulations are stricter, the local rule applies and the regional office must be informed.',
  'The process was simplified last year after feedback from the operations teams in several ports.',
  'Costs are reported in euros and include all taxes unless stated otherwise.',
];

const person = () => `${pick(FIRST)} ${pick(LAST)}`;
const codename = () => { const n = pick(SYL) + pick(SYL) + (rnd() < 0.5 ? pick(SYL) : ''); return n[0].toUpperCase() + n.slice(1); };
const eur = () => `${int(12, 980)},${String(int(0, 999)).padStart(3, '0')}`;
const filler = (n) => Array.from({ length: n }, () => pick(FILLER)).join(' ');

/** A typo: two adjacent letters of one long word swapped. */
function typo(q, protect) {
  const ws = q.split(' ');
  const idx = ws.map((w, i) => [w, i]).filter(([w]) => /^[a-z]{7,}$/.test(w) && !protect.some((p) => p.toLowerCase().includes(w)));
  if (!idx.length) return q;
  const [w, i] = pick(idx);
  const j = int(1, w.length - 3);
  ws[i] = w.slice(0, j) + w[j + 1] + w[j] + w.slice(j + 2);
  return ws.join(' ');
}

const docs = [];
const questions = [];
const usedProjects = new Set();

const extras = [];

/**
 * A fact, its question as worded, and (for the later passes) a paraphrase,
 * the name a user may misspell and the synonym question.
 */
function fact(doc, section, sentence, question, protect = [], paraphrase, name, synonym) {
  section.body.push(sentence);
  let q = question;
  const r = rnd();
  if (r < 0.2) q = typo(q, protect);
  questions.push({ id: `q${questions.length + 1}`, question: q, document: doc.file, section: section.heading, answer: sentence, ...(q !== question ? { variant: 'typo' } : {}) });
  if (paraphrase) extras.push({ document: doc.file, section: section.heading, answer: sentence, question, paraphrase, name, synonym });
}

// Other word forms of the generated phrases, as a user would put them.
const ACTION_PARAPHRASE = {
  'report a safety incident': 'reporting safety incidents',
  'submit travel expenses': 'handing in a travel expense claim',
  'complete the data protection training': 'finishing data-protection trainings',
  'return company equipment': 'handing back company devices and equipment',
  'register a visitor': 'registering visitors',
  'file an overtime request': 'filing overtime requests',
  'request a security badge': 'requesting security badges',
  'archive signed contracts': 'archiving a signed contract',
};
const TOPIC_PARAPHRASE = {
  'warehouse automation': 'automating the warehouses',
  'fleet fuel hedging': 'hedging fuel for the fleet',
  'supplier audit': 'auditing suppliers',
  'crew rotation': 'rotating crews',
  'port fee renegotiation': 'renegotiating port fees',
  'cold chain monitoring': 'monitoring the cold chain',
  'cybersecurity drill': 'cyber-security drills',
  'carbon reporting': 'reporting carbon emissions',
  'spare parts pooling': 'pooling spare parts',
  'customs pre-clearance': 'pre-clearing customs',
  'hull cleaning schedule': 'scheduling hull cleanings',
  'satellite connectivity': 'satellite connections',
};
const plural = (p) => (p.endsWith('s') ? p : `${p}s`);

// ---- the synonym questions (hand-written words; none of them draws a random number) ----
// Each generated phrase said with other words than the documents use: a
// synonym or a description instead of the term. What makes a question
// answerable by exactly one chunk stays (a policy code, a project codename,
// a site, a month and year): those are names, not vocabulary.
const ACTION_SYNONYM = {
  'report a safety incident': 'notify management about a workplace accident',
  'submit travel expenses': 'claim back money spent on a business journey',
  'complete the data protection training': 'finish the privacy course',
  'return company equipment': 'give back the laptops and tools they were issued',
  'register a visitor': 'sign in a guest',
  'file an overtime request': 'ask to be paid for extra hours',
  'request a security badge': 'apply for an access card',
  'archive signed contracts': 'store executed agreements',
};
const TOPIC_SYNONYM = {
  'warehouse automation': 'robots in the storage depots',
  'fleet fuel hedging': 'locking in future diesel prices for the ships',
  'supplier audit': 'inspecting our vendors',
  'crew rotation': 'swapping seafarers between shifts',
  'port fee renegotiation': 'bargaining over harbour charges',
  'cold chain monitoring': 'tracking refrigerated shipments',
  'cybersecurity drill': 'the hacking attack exercise',
  'carbon reporting': 'disclosing greenhouse gas emissions',
  'spare parts pooling': 'sharing replacement components',
  'customs pre-clearance': 'clearing imports with border officials in advance',
  'hull cleaning schedule': 'when ship bottoms get scrubbed',
  'satellite connectivity': 'internet links from orbit',
};
const DEPT_SYNONYM = {
  logistics: 'shipping operations',
  finance: 'accounting',
  engineering: 'technical',
  procurement: 'purchasing',
  safety: 'occupational health',
  legal: 'counsel',
  'customer support': 'client helpdesk',
  'data platform': 'analytics infrastructure',
};
const PRODUCT_SYNONYM = {
  'hydraulic pump': 'oil-pressure pumps',
  'mooring line': 'docking ropes',
  'bilge sensor': 'detectors for water in the hull',
  'deck crane motor': 'engines for the onboard lifting cranes',
  'ballast valve': 'valves of the trim tanks',
  'radar mast': 'towers carrying the navigation scanner',
  'fuel filter': 'diesel strainers',
  'anchor winch': 'windlasses',
  // 'sonar module' is in both sheets of a site: no synonym question can pick one row.
  'life raft': 'inflatable rescue boats',
  'propeller shaft': 'screw drive axles',
  'gearbox seal': 'transmission gaskets',
  'navigation light': 'running lamps',
  'fire suppression unit': 'extinguishing systems',
  'cargo lashing kit': 'freight tie-down sets',
  'ventilation fan': 'air blowers',
};


// PDF handbooks: policies with deadlines and owners.
for (let d = 0; d < 8; d++) {
  const year = 2019 + d;
  const doc = { file: `employee-handbook-${year}.pdf`, kind: 'pdf', title: `Employee Handbook ${year}`, sections: [] };
  for (let k = 0; k < 7; k++) {
    const [action, event] = ACTIONS[(d + k) % ACTIONS.length];
    const code = `HR-${year % 100}${String(k + 1).padStart(2, '0')}`;
    const sec = { heading: `${k + 1}. Policy ${code}`, body: [filler(int(2, 4))] };
    const days = int(2, 45);
    fact(doc, sec, `Policy ${code} (${year}): employees must ${action} within ${days} days of ${event}.`, `How many days do employees have to ${action} under policy ${code}?`, [code], `What is the deadline for ${ACTION_PARAPHRASE[action]} according to ${code}?`, undefined, `How long may staff take to ${ACTION_SYNONYM[action]} under rule ${code}?`);
    const owner = person();
    fact(doc, sec, `The ${DEPTS[(d + k) % DEPTS.length]} department, represented by ${owner}, owns policy ${code}.`, `Who represents the department that owns policy ${code}?`, [code], `Which person speaks for the team responsible for ${code}?`, undefined, `Name the contact person of the group accountable for rule ${code}.`);
    sec.body.push(filler(int(3, 8)));
    doc.sections.push(sec);
  }
  docs.push(doc);
}

// DOCX project reports.
for (let d = 0; d < 10; d++) {
  let name;
  do name = codename(); while (usedProjects.has(name));
  usedProjects.add(name);
  const year = 2020 + (d % 6);
  const doc = { file: `project-${name.toLowerCase()}-report.docx`, kind: 'docx', title: `Project ${name} status report`, sections: [] };
  const lead = person();
  const site = pick(SITES);
  const secs = [
    { heading: 'Summary', body: [filler(2)] },
    { heading: 'Team and ownership', body: [filler(2)] },
    { heading: 'Budget', body: [filler(2)] },
    { heading: 'Risks', body: [filler(3)] },
    { heading: 'Milestones', body: [filler(2)] },
  ];
  fact(doc, secs[0], `Project ${name} moves the ${pick(DEPTS)} workload of the ${site} terminal to a shared platform by ${pick(MONTHS)} ${year + 1}.`, `Which terminal is project ${name} moving to a shared platform?`, [name], `Where is the terminal whose workload ${name} migrates?`, name, `At which port facility does the ${name} initiative consolidate operations onto a common system?`);
  fact(doc, secs[1], `${lead} has led project ${name} since ${pick(MONTHS)} ${year}, reporting to ${person()}.`, `Who leads project ${name}?`, [name, lead], `Who is in charge of ${name}?`, name, `Who heads the ${name} initiative and who is their boss?`);
  fact(doc, secs[2], `The approved budget of project ${name} for ${year} is EUR ${eur()}, of which ${int(10, 60)} percent is for external contractors.`, `What is the approved budget of project ${name} in ${year}?`, [name], `How much money was approved for ${name} in ${year}?`, name, `How much funding was sanctioned for the ${name} programme in ${year}, and what share goes to outside firms?`);
  fact(doc, secs[3], `The main risk for ${name} is ${pick(['a delayed customs integration', 'vendor lock-in on the scanning hardware', 'staff turnover in the night shift', 'unclear data ownership', 'an ageing crane control system'])}, rated ${pick(['high', 'medium', 'low'])} by the steering group.`, `What is the main risk for project ${name}?`, [name], `What is the biggest threat to ${name}?`, name, `Which danger worries the steering committee most about the ${name} programme?`);
  fact(doc, secs[4], `Milestone ${int(2, 6)} of ${name}, the ${pick(['go-live', 'pilot start', 'data migration', 'acceptance test'])}, is planned for week ${int(2, 51)} of ${year + 1}.`, `When is the next milestone of project ${name} planned?`, [name], `In which week is the ${name} milestone scheduled?`, name, `When is the next checkpoint of the ${name} programme due?`);
  doc.sections = secs;
  doc.table = [['Item', 'Owner', 'Status'], ...Array.from({ length: 4 }, () => [pick(['Contract', 'Hardware', 'Training', 'Data model', 'Interfaces']), person(), pick(['done', 'open', 'late'])])];
  docs.push(doc);
}

// XLSX inventories: one row per product and warehouse.
for (let d = 0; d < 6; d++) {
  const year = 2021 + (d % 4);
  const site = SITES[d];
  const doc = { file: `inventory-${site.toLowerCase()}-${year}.xlsx`, kind: 'xlsx', title: `Inventory ${site} ${year}`, sheets: [] };
  for (const sheetName of ['Spare parts', 'Safety equipment']) {
    const rows = [['SKU', 'Product', 'Warehouse', 'Quantity', 'Reorder level']];
    const prods = sheetName === 'Spare parts' ? PRODUCTS.slice(0, 10) : PRODUCTS.slice(9);
    for (const p of prods) {
      const sku = `${site.slice(0, 3).toUpperCase()}-${int(1000, 9999)}`;
      const wh = `${site} ${pick(['North', 'South', 'East', 'West'])} ${int(1, 4)}`;
      const qty = int(3, 900);
      rows.push([sku, p, wh, qty, int(2, 50)]);
      const row = [sku, p, wh, String(qty)].join(' | ');
      const question = rnd() < 0.5 ? `How many ${p} units are in stock at ${site} in the spreadsheet?` : `Stock level of ${p} in the ${site} inventory ${year}`;
      questions.push({ id: `q${questions.length + 1}`, question, document: doc.file, section: sheetName, answer: row });
      const synonym = PRODUCT_SYNONYM[p] ? `What quantity of ${PRODUCT_SYNONYM[p]} is stored at the ${site} depot according to the ${year} stock list?` : undefined;
      extras.push({ document: doc.file, section: sheetName, answer: row, question, paraphrase: `How many ${plural(p)} does ${site} have on hand in ${year}?`, name: p, synonym });
    }
    doc.sheets.push({ name: sheetName, rows });
  }
  docs.push(doc);
}

// Markdown meeting notes.
for (let d = 0; d < 8; d++) {
  const year = 2022 + (d % 3);
  const dept = DEPTS[d];
  const doc = { file: `${dept.replace(/ /g, '-')}-meeting-notes-${year}.md`, kind: 'md', title: `${dept[0].toUpperCase() + dept.slice(1)} meeting notes ${year}`, sections: [] };
  for (let k = 0; k < 6; k++) {
    const month = MONTHS[(k * 2 + d) % 12];
    const topic = TOPICS[(d * 3 + k) % TOPICS.length];
    const day = int(1, 28);
    const sec = { heading: `${day} ${month} ${year}: ${topic}`, body: [filler(int(1, 3))] };
    const decision = pick(DECISIONS);
    fact(doc, sec, `Decision on ${topic} (${dept}, ${month} ${year}): the team agreed to ${decision}.`, `What did the ${dept} team decide about ${topic} in ${month} ${year}?`, [topic], `What was decided on ${TOPIC_PARAPHRASE[topic]} by ${dept} in ${month} ${year}?`, topic, `What did the ${DEPT_SYNONYM[dept]} group conclude about ${TOPIC_SYNONYM[topic]} in ${month} ${year}?`);
    const who = person();
    fact(doc, sec, `Action item: ${who} prepares the ${topic} follow-up for the ${dept} meeting after ${month} ${day}.`, `Who prepares the ${topic} follow-up for the ${dept} team?`, [topic, who], `Who is preparing the follow-up on ${TOPIC_PARAPHRASE[topic]} for ${dept}?`, topic, `Which colleague readies the next steps on ${TOPIC_SYNONYM[topic]} for the ${DEPT_SYNONYM[dept]} group?`);
    sec.body.push(filler(int(1, 4)));
    doc.sections.push(sec);
  }
  docs.push(doc);
}

// ---- second pass: paraphrases and misspelt names (own generator: the documents above stay as they are) ----
let s2 = (seed * 7919 + 1) >>> 0;
const rnd2 = () => ((s2 = (Math.imul(s2, 1664525) + 1013904223) >>> 0) / 2 ** 32);
/** The name with two adjacent letters of its longest word swapped (not the first letter). */
function misspell(name) {
  const ws = name.split(' ');
  const i = ws.reduce((b, w, j) => (w.length > ws[b].length ? j : b), 0);
  const w = ws[i];
  if (w.length < 5) return name;
  const j = 1 + Math.floor(rnd2() * (w.length - 3));
  ws[i] = w.slice(0, j) + w[j + 1] + w[j] + w.slice(j + 2);
  return ws.join(' ');
}
for (const x of extras) {
  questions.push({ id: `q${questions.length + 1}`, question: x.paraphrase, document: x.document, section: x.section, answer: x.answer, variant: 'paraphrase' });
  if (x.name && rnd2() < 0.35) {
    const wrong = misspell(x.name);
    const q = x.question.replace(x.name, wrong);
    if (q !== x.question) questions.push({ id: `q${questions.length + 1}`, question: q, document: x.document, section: x.section, answer: x.answer, variant: 'misspelt-name' });
  }
}

// ---- third pass: the synonym questions (no random numbers drawn: everything above stays as it was) ----
for (const x of extras) {
  if (x.synonym) questions.push({ id: `q${questions.length + 1}`, question: x.synonym, document: x.document, section: x.section, answer: x.answer, variant: 'synonym' });
}

// ---- writers ----
async function writePdf(doc) {
  const pdf = await PDFDocument.create();
  pdf.setTitle(doc.title);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  let page = pdf.addPage([595, 842]);
  let y = 790;
  const line = (text, size, f) => {
    if (y < 60) { page = pdf.addPage([595, 842]); y = 790; }
    page.drawText(text, { x: 50, y, size, font: f });
    y -= size * 1.45;
  };
  const wrap = (text, size) => {
    const words = text.split(' ');
    let cur = '';
    for (const w of words) {
      if (font.widthOfTextAtSize(`${cur} ${w}`, size) > 490) { line(cur, size, font); cur = w; } else cur = cur ? `${cur} ${w}` : w;
    }
    if (cur) line(cur, size, font);
    y -= size * 0.9;
  };
  line(doc.title, 20, bold);
  y -= 10;
  for (const sec of doc.sections) {
    // A new page every two sections: page numbers become part of the sources.
    if (doc.sections.indexOf(sec) % 2 === 0 && doc.sections.indexOf(sec) > 0) y = 0;
    line(sec.heading, 14, bold);
    for (const p of sec.body) wrap(p, 10);
  }
  return pdf.save();
}

async function writeDocx(doc) {
  const children = [new Paragraph({ text: doc.title, heading: HeadingLevel.HEADING_1 })];
  for (const sec of doc.sections) {
    children.push(new Paragraph({ text: sec.heading, heading: HeadingLevel.HEADING_2 }));
    for (const p of sec.body) children.push(new Paragraph({ text: p }));
  }
  children.push(new Paragraph({ text: 'Work packages', heading: HeadingLevel.HEADING_2 }));
  children.push(new Table({ rows: doc.table.map((r) => new TableRow({ children: r.map((c) => new TableCell({ children: [new Paragraph(String(c))] })) })) }));
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

async function writeXlsx(doc) {
  const wb = new ExcelJS.Workbook();
  wb.title = doc.title;
  for (const sh of doc.sheets) wb.addWorksheet(sh.name).addRows(sh.rows);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

function writeMd(doc) {
  return [`# ${doc.title}`, '', ...doc.sections.flatMap((sec) => [`## ${sec.heading}`, '', ...sec.body.flatMap((p) => [p, '']), ''])].join('\n');
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const TYPES = { pdf: 'application/pdf', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', md: 'text/markdown' };
const manifest = [];
for (const doc of docs) {
  const bytes = doc.kind === 'pdf' ? await writePdf(doc) : doc.kind === 'docx' ? await writeDocx(doc) : doc.kind === 'xlsx' ? await writeXlsx(doc) : Buffer.from(writeMd(doc));
  writeFileSync(join(out, doc.file), bytes);
  manifest.push({ file: doc.file, title: doc.title, content_type: TYPES[doc.kind] });
}
writeFileSync(join(here, 'questions.json'), `${JSON.stringify({ seed, documents: manifest, questions }, null, 1)}\n`);
console.log(`wrote ${docs.length} documents (${Object.entries(docs.reduce((a, d) => ((a[d.kind] = (a[d.kind] ?? 0) + 1), a), {})).map(([k, v]) => `${v} ${k}`).join(', ')}) and ${questions.length} questions to ${out}`);
