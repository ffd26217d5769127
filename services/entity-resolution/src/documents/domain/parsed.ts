/** What a parser yields: the document as ordered blocks with their place (page, section). */

export type BlockKind = 'heading' | 'paragraph' | 'table';

export interface Block {
  kind: BlockKind;
  text: string;
  /** Heading level (1 = top) for headings. */
  level?: number;
  /** 1-based page (PDF) or sheet number (spreadsheets); absent when the format has none. */
  page?: number;
  /** Sheet name for spreadsheets. */
  sheet?: string;
}

export interface ParsedDocument {
  blocks: Block[];
  /** Pages (PDF), sheets (spreadsheets) or 1. */
  pageCount: number;
  /** The parser that read it (`pdf`, `docx`, `xlsx`, `csv`, `markdown`, `text`, `html`). */
  format: DocumentFormat;
  /** A title the file itself carries (PDF info, first H1), if any. */
  title?: string;
}

export type DocumentFormat = 'pdf' | 'docx' | 'xlsx' | 'csv' | 'markdown' | 'text' | 'html';
