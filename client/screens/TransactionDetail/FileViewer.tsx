import { useEffect, useState } from "react";
import { messageOf } from "../../actions/messages.ts";
import { fileOf, previewFileOf } from "../../actions/receipts.ts";
import { type FileStage, FileView } from "../../components/FileView.tsx";

/** A receipt or document as the viewers need it. */
export interface ViewedFile {
  oid: string;
  name: string;
  mimeType: string;
  size: number;
  /** The server has a bounded preview of it (spec §7 pwapreview). */
  hasPreview: boolean;
}

interface Shown {
  stage: FileStage;
  url: string | null;
  data: ArrayBuffer | null;
  error: string | null;
}

/**
 * The preview of `f` (spec §7 pwapreview, size=1024) and, once asked, its original (spec §7
 * pwadocumentcontent), kept in memory as an object URL or bytes while shown.
 */
function useViewedFile(f: ViewedFile) {
  const [wantOriginal, setWantOriginal] = useState(false);
  const stage0: FileStage = wantOriginal ? "original" : f.hasPreview ? "preview" : "none";
  const [shown, setShown] = useState<Shown>({ stage: stage0, url: null, data: null, error: null });
  useEffect(() => {
    let alive = true;
    let url: string | null = null;
    const stage: FileStage = wantOriginal ? "original" : f.hasPreview ? "preview" : "none";
    setShown({ stage, url: null, data: null, error: null });
    if (stage === "none") return;
    (stage === "original" ? fileOf(f.oid) : previewFileOf(f.oid)).then(async (got) => {
      if (!alive) return;
      // A preview the server does not have: the original stays one tap away.
      if (!got) return setShown({ stage: "none", url: null, data: null, error: null });
      if (stage === "original" && f.mimeType === "application/pdf") {
        const data = await got.blob.arrayBuffer();
        if (alive) setShown({ stage, url: null, data, error: null });
      } else {
        url = URL.createObjectURL(got.blob);
        setShown({ stage, url, data: null, error: null });
      }
    }).catch((err) => alive && setShown({ stage, url: null, data: null, error: messageOf(err) }));
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [f.oid, wantOriginal]);
  return { shown, showOriginal: () => setWantOriginal(true) };
}

/** A receipt or document viewer: the preview first, the original on demand. */
export function FileViewer(props: { file: ViewedFile }) {
  const { shown, showOriginal } = useViewedFile(props.file);
  return (
    <FileView
      name={props.file.name}
      mimeType={props.file.mimeType}
      size={props.file.size}
      {...shown}
      onOriginal={showOriginal}
    />
  );
}
