import type { Dictionary } from "./en.ts";

/**
 * German, spread by de.ts (which says which part holds what):
 * approval detail, edit, request rules (`request.`), comments, documents (`doc.`), VAT lines,
 * the card and 3-D Secure texts of the detail screens, push, mail and relay: the keys from
 * `approval.title` to the end.
 */
export const deApprovals = {
  "approval.title": "Genehmigung {id}",
  "approval.status": "Status",
  "approval.amount": "Betrag",
  "approval.relatedEntity": "Antrag",
  "approval.type": "Art",
  "approval.author": "Antragsteller",
  "approval.account": "Genehmigungskonto",
  "approval.issueDate": "Ausstellungsdatum",
  "approval.description": "Beschreibung",
  "approval.purpose": "Zweck",
  "approval.costCenter": "Kostenstelle",
  "approval.ledger": "Sachkonto",
  "approval.project": "Projektcode",
  "approval.approvers": "Genehmigende",
  "approval.noMembers": "Keine Mitglieder",
  "approval.pollLevels": "Genehmigungsstufen",
  "approval.level": "Stufe {level}",
  "approval.quota": "Benötigte Zustimmungen: {count}",
  "approval.delegation": "Vertretungsteam: {team}",
  "approval.openedOn": "Geöffnet am {date}",
  "approval.notOpened": "Noch nicht geöffnet",
  "approval.levelStatus.pending": "Wartend",
  "approval.levelStatus.open": "Offen",
  "approval.levelStatus.approved": "Genehmigt",
  "approval.levelStatus.rejected": "Abgelehnt",
  "approval.levelStatus.cancelled": "Storniert",
  "approval.votes": "Stimmen",
  "approval.noVotes": "Noch keine Stimmen",
  "approval.vote.approved": "Genehmigt",
  "approval.vote.rejected": "Abgelehnt",
  "approval.vote.reviewed": "Geprüft",
  "approval.delegated": "in Vertretung",
  "approval.teams": "Teams",
  "approval.showTeams": "Alle Teams anzeigen",
  "approval.approve": "Genehmigen",
  "pin.confirm": "Geben Sie dieselbe PIN erneut ein",
  "pin.differ": "Die PINs stimmen nicht überein",
  "approval.rejectHint":
    "Beendet die Genehmigung: Der Antrag wird abgelehnt und der Antragsteller benachrichtigt.",
  "approval.reasonOptional": "Grund der Ablehnung (optional)",
  "approval.reasonShown": "Der Antragsteller sieht diesen Grund beim Antrag.",
  "budget.preview": "{count, plural, one {# Termin} other {# Termine}}, vom {first} bis {last}",
  "approvals.youApproved": "Von Ihnen genehmigt",
  "approvals.youRejected": "Von Ihnen abgelehnt",
  "approval.reject": "Ablehnen",
  "approval.edit": "Bearbeiten",
  "approval.approveConfirm": "{what} genehmigen?",
  "approval.rejectConfirm": "{what} ablehnen?",
  "approval.decisionExtra": "{description}",
  "approval.approving": "Wird genehmigt…",
  "approval.rejecting": "Wird abgelehnt…",
  "approval.approvedNotice": "Genehmigt: {what}",
  "approval.rejectedNotice": "Abgelehnt: {what}",
  "approval.editConfirm": "Genehmigung stornieren und neu anlegen?",
  "approval.recreate": "Genehmigung neu anlegen",
  "approval.editExtra":
    "Die bisherigen Stimmen verfallen und die Genehmigenden entscheiden erneut.",
  "approval.recreated": "Für {what} wurde eine neue Genehmigung angelegt",
  "approval.rejectNoteTitle": "Grund der Ablehnung",
  "approval.rejectNoteHelp": "Für diese Art ist vor einer Ablehnung ein Kommentar erforderlich.",
  "approval.rejectNoteSend": "Kommentar hinzufügen und ablehnen",
  "approval.inAccountCurrency": "≈ {amount} in der Währung des Kontos (Kurs vom {date})",
  "approval.budgetOnce": "{amount} am {date}",
  "approval.budgetMonthly": "{count} × {amount} monatlich, bis {last}",
  "approval.budgetWeekly": "{count} × {amount} wöchentlich, bis {last}",
  "approval.why.title": "Nur zur Ansicht:",
  "approval.why.own": "Sie haben diesen Antrag gestellt: Andere Genehmigende entscheiden darüber.",
  "approval.why.decided": "Darüber wurde bereits entschieden: Es bleibt nichts zu entscheiden.",
  "approval.why.approvedBy":
    "{name} hat am {date} abschließend genehmigt: Es bleibt nichts zu entscheiden.",
  "approval.why.rejectedBy": "{name} hat am {date} abgelehnt: Es bleibt nichts zu entscheiden.",
  "approval.why.cancelled":
    "Diese Genehmigung wurde storniert (ihr Antrag wurde geändert oder zurückgezogen): Es bleibt nichts zu entscheiden.",
  "approval.why.votedHere":
    "Sie haben am {date} genehmigt; Stufe {level} ({action}) braucht noch Stimmen anderer Genehmigender.",
  "approval.why.votedBefore":
    "Sie haben Stufe {mine} am {date} genehmigt; jetzt entscheidet Stufe {level} ({action}).",
  "approval.why.barred":
    "Sie haben diesen Antrag bearbeitet, nachdem Stufe {level} entschieden war; deshalb entscheiden andere Genehmigende.",
  "approval.why.waiting":
    "Zuerst entscheidet Stufe {level} ({action}); Sie entscheiden in Stufe {mine}, sobald sie genehmigt ist.",
  "approval.why.passed":
    "{name} hat Stufe {mine} am {date} genehmigt; jetzt entscheidet Stufe {level} ({action}).",
  "approval.why.reviewer":
    "Stufe {level} ({action}) entscheidet; Sie können den Vorgang verfolgen, aber nicht entscheiden.",
  "approval.next": "Weiter",
  "approval.next.waiting":
    "{count, plural, one {# weitere Genehmigung wartet} other {# weitere Genehmigungen warten}} auf Sie.",
  "approval.next.what": "Als Nächstes: {what}",
  "approval.next.none": "Keine weitere Genehmigung wartet auf Ihre Entscheidung.",
  "approval.next.toList": "Zurück zur Liste",
  "filter.author": "Antragsteller",
  "edit.title": "Antrag bearbeiten",
  "edit.save": "Speichern",
  "edit.reissueConfirm":
    "Diese Änderung erfordert eine neue Genehmigung. Die laufende Genehmigung stornieren und neu anlegen?",
  "edit.saved": "Antrag gespeichert",
  "request.typeUnknown": "Diese Art gibt es nicht",
  "request.accountUnknown": "Dieses Konto gibt es nicht",
  "request.typeAccountMismatch": "Diese Art gehört nicht zum gewählten Konto",
  "request.budgetNotAllowed": "Diese Art erlaubt kein Budget",
  "request.codesMismatch": "Dieses Sachkonto oder dieser Projektcode gehört nicht zur Kostenstelle",
  "request.costCenterNotAllowed": "Diese Kostenstelle kann mit dieser Art nicht verwendet werden",
  "request.currencyUnknown": "Diese Währung ist nicht verfügbar",
  "request.missingReceipts":
    "Für einige Ihrer Transaktionen fehlen noch Belege. Bitte reichen Sie diese zuerst ein",
  "request.cannotRequest": "Sie dürfen keine Anträge erstellen",
  "request.notAllowed": "Diese Aktion ist für diesen Antrag nicht erlaubt",
  "request.reissueRequired": "Diese Änderung erfordert eine neue Genehmigung",
  "request.busy": "Der Antrag wurde inzwischen geändert, bitte versuchen Sie es erneut",
  "approval.reissuedNote":
    "{name} hat diese Anfrage bearbeitet ({changes}): Die Genehmigung wurde storniert und eine neue Genehmigung eröffnet.",
  "approval.decided": "Über diese Genehmigungsanfrage wurde bereits entschieden",
  "approval.notAllowed": "Sie können über diese Genehmigungsanfrage nicht entscheiden",
  "approval.rejectNoteRequired":
    "Für diese Art ist vor einer Ablehnung ein Kommentar erforderlich: Bitte fügen Sie zuerst einen hinzu",
  "comment.notAllowed": "Zu diesem Antrag können keine Kommentare hinzugefügt werden",
  "comment.notDeletable": "Dieser Kommentar kann nicht gelöscht werden",
  "flip.notFlippable":
    "Nur gebuchte oder autorisierte Transaktionen, die weder geprüft noch verschoben sind, können umgebucht werden",
  "flip.mixedExpenses": "Nur Transaktionen derselben Ausgabe können gemeinsam umgebucht werden",
  "flip.wrongExpense": "Diese Transaktionen gehören nicht zu dieser Ausgabe",
  "doc.tooLarge": "Die Datei ist zu groß: höchstens {max}",
  "doc.unsupportedType": "Dieser Dateityp wird nicht unterstützt. Erlaubt:",
  "doc.badContent":
    "Die Datei ist nicht, was ihr Name angibt: Nur {allowed}-Dateien können hochgeladen werden",
  "doc.noFile": "Wählen Sie eine Datei zum Hochladen",
  "doc.notAllowed": "Zu dieser Transaktion können keine Dokumente hinzugefügt werden",
  "doc.reviewed": "Einer bereits geprüften Transaktion kann kein Beleg hinzugefügt werden",
  "doc.refused": "Abgelehnte oder verschobene Transaktionen nehmen keine Belege oder Dokumente an",
  "doc.tooMany": "Eine Transaktion kann höchstens {max} Dokumente enthalten",
  "doc.notDeletable": "Dieses Dokument kann nicht gelöscht werden",
  "doc.tokenExpired": "Dieser Link ist abgelaufen. Bitte versuchen Sie es erneut.",
  "doc.uploadFailed": "Das Hochladen ist fehlgeschlagen. Bitte versuchen Sie es erneut.",
  "doc.pdfFailed": "Das PDF konnte nicht angezeigt werden",
  "doc.pdfPage": "Seite {page} von {pages}",
  "doc.readOnly":
    "Diese Transaktion ist geprüft: Ihre Belege und Dokumente können nicht mehr geändert werden",
  "doc.badPreview": "Die Vorschau muss ein JPEG- oder PNG-Bild mit höchstens {max} Pixeln sein",
  "vat.readOnly": "Diese Transaktion ist geprüft und kann nicht mehr geändert werden",
  "vat.refused": "Abgelehnte oder verschobene Transaktionen haben keine MwSt.",
  "vat.accountingRequired": "Wählen Sie einen Buchungscode",
  "vat.typeRequired": "Wählen Sie eine Belegart",
  "vat.accountingDisabled": "Buchungscodes werden in dieser Organisation nicht verwendet",
  "vat.typeDisabled": "Belegarten werden in dieser Organisation nicht verwendet",
  "vat.unknownAccountingCode": "Unbekannter Buchungscode {code}",
  "vat.unknownType": "Unbekannte Belegart {code}",
  "vat.unknownCountry": "Unbekanntes Land {country}",
  "vat.countryRequired": "Wählen Sie das Land der MwSt.",
  "vat.unknownCode": "MwSt.-Code {code} ist kein Code von {country}",
  "vat.duplicateCode": "MwSt.-Code {code} wird in zwei Zeilen verwendet",
  "vat.lineGap":
    "Füllen Sie die MwSt.-Zeilen der Reihe nach aus, ohne leere Zeile vor einer ausgefüllten",
  "vat.amountMismatch": "MwSt.-Zeile {line}: Der Betrag muss {expected} sein",
  "vat.sumTooHigh": "Die MwSt.-Zeilen ergeben zusammen mehr als den Betrag",
  "vat.receiptMissing": "Fügen Sie einen Beleg hinzu, bevor die Transaktion geprüft wird",
  "vat.flagConflict": "Für eine Transaktion ohne MwSt. wurden MwSt.-Zeilen angegeben",
  "vat.tooManyLines": "Eine Transaktion hat höchstens {max} MwSt.-Zeilen",
  "card.notAllowed": "Diese Kartenaktion ist nicht erlaubt",
  "card.secureRequired": "Richten Sie zuerst 3-D Secure ein",
  "card.revealNotAllowed": "Die Kartendaten können nicht angezeigt werden",
  "secure.bad.password":
    "Das Passwort muss aus 4 bis 30 Buchstaben, Ziffern oder {symbols} bestehen",
  "secure.bad.prefix": "Geben Sie eine Ländervorwahl wie +49 ein",
  "secure.bad.phone": "Geben Sie eine Telefonnummer mit mindestens 6 Ziffern ein",
  "secure.pinText": "Ihre QCard-3-D-Secure-PIN lautet {pin}. Sie ist {minutes} Minuten gültig.",
  "secure.pinSubject": "Ihre QCard-3-D-Secure-PIN",
  "push.approval.title": "Genehmigung erforderlich",
  "push.approval.body": "{author} beantragt {amount}: {purpose}",
  "push.accepted.title": "Antrag genehmigt",
  "push.accepted.body": "{purpose} ({amount}) wurde genehmigt",
  "push.rejected.title": "Antrag abgelehnt",
  "push.rejected.body": "{purpose} ({amount}) wurde abgelehnt",
  "push.note": "Notiz: {note}",
  "push.purchase.title": "Kartenzahlung autorisiert",
  "push.purchase.body": "{amount} bei {merchant}",
  "push.refused.title": "Kartenzahlung abgelehnt",
  "push.refused.body": "{amount} bei {merchant} abgelehnt: {reason}",
  "push.overdue.title": "Beleg überfällig",
  "push.overdue.body":
    "Fügen Sie den Beleg für {amount} bei {merchant} hinzu: Er war am {date} fällig",
  "push.declined.body": "{amount} bei {merchant}. {why}",
  "push.declined.frozen": "Karte gesperrt: Entsperren Sie sie im Wallet und zahlen Sie erneut.",
  "push.declined.closed":
    "Karte geschlossen: Sie kann nicht mehr zahlen. Beantragen Sie mit einer neuen Anfrage eine neue.",
  "push.declined.expired": "Karte abgelaufen: Beantragen Sie mit einer neuen Anfrage eine neue.",
  "push.declined.invalidCard":
    "Karte nicht nutzbar: Öffnen Sie sie im Wallet, um den Grund zu sehen.",
  "push.declined.cvc":
    "Sicherheitscode (CVC) nicht akzeptiert: Prüfen Sie ihn auf der Karte im Wallet und versuchen Sie es erneut.",
  "push.declined.mcc":
    "Diese Art von Geschäft ist mit dieser Karte nicht erlaubt: Zahlen Sie anders oder fragen Sie Ihre Finanzabteilung.",
  "push.declined.exceedsMax":
    "Betrag höher als das Restguthaben der Karte: Beantragen Sie mehr mit einer neuen Anfrage.",
  "push.declined.exceededMax":
    "Betrag höher als bisher bereitgestellt: Warten Sie auf die nächste Budgetzeile oder beantragen Sie mehr.",
  "push.declined.verification":
    "Eine Kartenangabe stimmte nicht: Prüfen Sie das Ablaufdatum im Wallet und versuchen Sie es erneut.",
  "push.declined.threeDSecure":
    "Noch kein 3-D-Secure-Passwort: Legen Sie es in den 3-D-Secure-Einstellungen fest und zahlen Sie erneut.",
  "push.declined.authentication":
    "3-D-Secure-Prüfung fehlgeschlagen: Prüfen Sie Ihr 3-D-Secure-Passwort und versuchen Sie es erneut.",
  "push.declined.invalidCurrency":
    "Die Karte kann in dieser Währung nicht zahlen: Zahlen Sie in der Kartenwährung oder anders.",
  "push.declined.other":
    "Vom Kartenherausgeber abgelehnt: Öffnen Sie die Zahlung, um den Grund zu sehen.",
  "mail.activation.subject": "Ihr QCard-Aktivierungscode",
  "mail.activation.body":
    "Hallo {fname},\n\nIhr QCard-Aktivierungscode lautet {code}.\nÖffnen Sie QCard unter {url} und geben Sie diesen Code ein, um Ihr Gerät zu aktivieren. Der Code kann einmal verwendet werden und läuft am {expires} ab.\n\nWenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.",
  "relay.timeout":
    "Der Server hat zu lange für eine Antwort gebraucht. Bitte versuchen Sie es erneut.",
  "relay.unreachable":
    "Der Server ist gerade nicht erreichbar. Bitte versuchen Sie es später erneut.",
} satisfies Partial<Dictionary>;
