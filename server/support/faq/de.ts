/** The support page in German (server/support/faq.ts). */
import type { FaqText } from "./types.ts";

export const de: FaqText = {
  language: "Deutsch",
  title: "QCard-Hilfe und häufige Fragen",
  intro:
    "Antworten auf die häufigsten Fragen. Diese Seite ist auf Ihrem Gerät gespeichert und öffnet sich daher auch ohne Netzwerk.",
  languages: "Sprache",
  topics: [
    {
      id: "activation",
      title: "Aktivierung",
      items: [
        [
          "Wie aktiviere ich QCard auf meinem Telefon?",
          "Ihre Organisation sendet Ihnen eine Aktivierungs-E-Mail mit einem 5-stelligen Code. Öffnen Sie QCard, geben Sie den Code auf dem Tastenfeld ein, tippen Sie auf „Gerät verbinden“ und wählen Sie dann Ihre 6-stellige PIN.",
        ],
        [
          "Mein Code ist abgelaufen oder die E-Mail ist weg. Was nun?",
          "Tippen Sie auf dem PIN-Feld auf „Aktivierungs-E-Mail senden“, geben Sie die E-Mail-Adresse Ihres Kontos ein und beantworten Sie Ihre Sicherheitsfrage. Sie erhalten einen neuen Code per E-Mail; jeder Code gilt nur einmal.",
        ],
      ],
    },
    {
      id: "pin",
      title: "PIN",
      items: [
        [
          "Welche PIN kann ich wählen?",
          "Sechs Ziffern. Aus Sicherheitsgründen lehnt QCard eine Ziffer ab, die mehr als dreimal hintereinander vorkommt, direkte Folgen wie 123456 oder 987654 und wiederholte Muster wie 121212 oder 123123.",
        ],
        [
          "Was passiert nach falschen PINs?",
          "Nach fünf falschen PINs in Folge löscht QCard seine Daten von diesem Gerät, und Sie aktivieren es erneut. Ihre Anträge, Karten und Belege bleiben sicher auf dem Server.",
        ],
      ],
    },
    {
      id: "requests",
      title: "Anträge",
      items: [
        [
          "Wie beantrage ich eine Ausgabe?",
          "Tippen Sie im Antragsmodus auf „Neuer Antrag“, wählen Sie die Art, geben Sie den Betrag (oder ein Budget für wiederkehrende Ausgaben), die Währung und den Zweck ein und reichen Sie den Antrag ein. Ihre Genehmigenden entscheiden Stufe für Stufe.",
        ],
        [
          "Warum kann ich keinen Antrag erstellen?",
          "Kartenzahlungen mit überfälligem Beleg brauchen zuerst ihren Beleg; das Abzeichen zählt, was auf Sie wartet. Ihre Organisation kann Ihnen außerdem das Erstellen von Anträgen verwehren.",
        ],
      ],
    },
    {
      id: "cards",
      title: "Virtuelle Karten",
      items: [
        [
          "Wie bekomme ich eine Karte?",
          "Öffnen Sie einen genehmigten Antrag und tippen Sie auf „Karte erstellen“. Beim ersten Mal richten Sie 3-D Secure ein: ein Passwort und eine Mobilnummer, mit denen Sie Onlinezahlungen bestätigen.",
        ],
        [
          "Wie sehe ich die Kartennummer?",
          "Tippen Sie in den Kartendetails auf „Kartendaten anzeigen“: Nummer und CVC sind 30 Sekunden lang sichtbar. Sperren Sie die Karte, um Zahlungen abzulehnen, bis Sie sie wieder entsperren.",
        ],
      ],
    },
    {
      id: "receipts",
      title: "Belege",
      items: [
        [
          "Wie füge ich einen Beleg hinzu?",
          "Öffnen Sie die Zahlung unter Transaktionen und tippen Sie auf „Beleg hinzufügen“: Nehmen Sie ein Foto auf oder wählen Sie eine JPEG-, PNG- oder PDF-Datei. Fotos werden vor dem Senden auf Ihrem Telefon verkleinert.",
        ],
        [
          "Wann ist ein Beleg fällig?",
          "Ihre Organisation legt eine Anzahl von Tagen nach jeder Kartenzahlung fest. Ein überfälliger Beleg erscheint im Abzeichen und blockiert neue Anträge, bis er hinzugefügt ist.",
        ],
      ],
    },
    {
      id: "vat",
      title: "Mehrwertsteuer",
      items: [
        [
          "Wie erfasse ich die MwSt. einer Zahlung?",
          "Legen Sie in der Transaktion die MwSt.-Art fest: unbekannt, ohne MwSt. oder mit MwSt. Wenn Ihre Organisation Details verlangt, wählen Sie das Land und bis zu drei MwSt.-Codes; jeder MwSt.-Betrag wird für Sie berechnet.",
        ],
        [
          "Warum kann ich die MwSt. nicht ändern?",
          "Eine geprüfte Transaktion kann nicht mehr geändert werden, und abgelehnte oder verschobene Transaktionen haben keine MwSt.",
        ],
      ],
    },
    {
      id: "offline",
      title: "Ohne Netzwerk",
      items: [
        [
          "Funktioniert QCard offline?",
          "Ja. Es zeigt die auf diesem Gerät gespeicherten Daten, verschlüsselt mit einem Schlüssel aus Ihrer PIN. Kommentare, Belegnotizen, MwSt.-Angaben und Belege, die Sie offline hinzufügen, warten auf dem Gerät und werden gesendet, sobald das Netzwerk zurück ist.",
        ],
        [
          "Was braucht ein Netzwerk?",
          "Die Aktivierung, das Genehmigen oder Ablehnen, das Erstellen einer Karte und das Umbuchen einer Zahlung: Diese Aktionen warten immer auf die Antwort des Servers.",
        ],
      ],
    },
  ],
};
